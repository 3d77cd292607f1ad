// SPDX-License-Identifier: GPL-2.0
/* --lifetime update: a sparse table's slot 0 updated to the --mem buffer. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "lifetime.h"

/* Slot 0 of a sparse table gets @iov; returns 0 or -errno. */
static int update0(struct lt *t, void *addr, size_t len)
{
	struct iovec iov = { .iov_base = addr, .iov_len = len };

	return t->p.ops->table_update(&t->p, 0, &iov);
}

/*
 * Sparse table, slot 0 = anon; update slot 0 to the --mem buffer. The
 * update answers what registering TYPE answers (the contract); after a
 * refusal the anon buffer still serves slot 0.
 */
static int lt_update(struct lt *t)
{
	char *anon;
	int ret, upd, exp;

	lp_lt_expect(t);
	anon = mmap(NULL, t->chk, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (anon == MAP_FAILED)
		return -errno;
	ret = t->p.ops->table_pin(&t->p, NULL, 1);
	if (!ret) {
		t->registered = true;
		ret = update0(t, anon, t->chk);
	}
	if (ret) {
		lp_lt_note(t, "sparse table with an anon slot 0: %s", lp_errno_name(ret));
		goto out;
	}
	upd = update0(t, t->m.addr, t->m.len);
	t->r.vmpin[1] = lp_vmpin_kb();
	lp_lt_note(t, "update answered %s", upd ? lp_errno_name(upd) : "0");
	t->unchecked = !t->r.have_expected;
	exp = t->r.have_expected ? t->r.expected : upd;
	if (upd != exp) {
		ret = upd;
		goto out;
	}
	memset(upd ? anon : t->m.addr, 0, t->chk);
	ret = t->p.ops->fixed_io(&t->p, false, t->tfd, upd ? anon : t->m.addr,
				 t->chk, 0);
	if (ret)
		lp_lt_note(t, "READ_FIXED into slot 0 (%s buffer): %s",
			upd ? "the old anon" : "the new", lp_errno_name(ret));
	else
		ret = lp_lt_mem_holds(t, upd ? anon : t->m.addr, t->want,
				   "slot 0 read other data");
	if (!ret) {
		strcpy(t->check, "ok");
		ret = upd;
	} else if (ret == upd) {
		ret = -EIO;
	}
out:
	if (t->registered)
		lp_lt_unreg(t);
	munmap(anon, t->chk);
	return ret;
}

const struct lt_case lp_lt_case_update = {
	.name = "update",
	.help = "a sparse table whose slot 0 is updated to the buffer: the update answers what registering does",
	.run = lt_update, .refused_too = true,
};
