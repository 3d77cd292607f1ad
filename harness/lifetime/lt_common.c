// SPDX-License-Identifier: GPL-2.0
/*
 * What the lifetime cases share: their notes and failures, the pin and
 * the unpin through the run's pinner, VmPin while pinned, and the data
 * checks of what the device read into the pinned buffer or wrote from it
 * (the pinner's fixed_io: io_uring's READ_FIXED and WRITE_FIXED).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lifetime.h"

/* the pinners of the cases that pin, unpin and let the device write */
const char *const lp_lt_pinners_unpin[] = { "io_uring", "rdma", NULL };

static void lt_vnote(struct lt *t, const char *fmt, va_list ap)
{
	size_t len = strlen(t->note);

	if (len && len + 2 < sizeof(t->note)) {
		strcpy(t->note + len, "; ");
		len += 2;
	}
	vsnprintf(t->note + len, sizeof(t->note) - len, fmt, ap);
}

void lp_lt_note(struct lt *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lt_vnote(t, fmt, ap);
	va_end(ap);
}

/*
 * A check beside the case's answer failed (a pin left, an unregistration
 * refused): noted, and the row fails whatever the contract expects.
 * Returns -EIO.
 */
int lp_lt_fail(struct lt *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lt_vnote(t, fmt, ap);
	va_end(ap);
	t->failed = true;
	return -EIO;
}

/* Does target[@off, +chk) hold @exp? -EIO with a note if not. */
int lp_lt_target_holds(struct lt *t, off_t off, const void *exp,
		    const char *what)
{
	if (pread(t->tfd, t->got, t->chk, off) != (ssize_t)t->chk)
		return -errno ? -errno : -EIO;
	if (!memcmp(t->got, exp, t->chk))
		return 0;
	lp_lt_note(t, "data check: %s", what);
	strcpy(t->check, "mismatch");
	return -EIO;
}

/*
 * READ_FIXED the target's pattern (t->want, at offset 0) into the
 * registered address @at: then @seen, where the buffer is now, holds it,
 * else -EIO with a note (@what).
 */
int lp_lt_read_check(struct lt *t, void *at, const void *seen, const char *what)
{
	int ret = t->p.ops->fixed_io(&t->p, false, t->tfd, at, t->chk, 0);

	return ret ? ret : lp_lt_mem_holds(t, seen, t->want, what);
}

/*
 * WRITE_FIXED from the registered address @from to the target at @off:
 * then the target there holds @exp, else -EIO with a note (@what).
 */
int lp_lt_write_check(struct lt *t, void *from, off_t off, const void *exp,
		   const char *what)
{
	int ret = t->p.ops->fixed_io(&t->p, true, t->tfd, from, t->chk, off);

	return ret ? ret : lp_lt_target_holds(t, off, exp, what);
}

int lp_lt_mem_holds(struct lt *t, const void *p, const void *exp,
		 const char *what)
{
	if (!memcmp(p, exp, t->chk))
		return 0;
	lp_lt_note(t, "data check: %s", what);
	strcpy(t->check, "mismatch");
	return -EIO;
}

/* Pin the case's buffer through the run's pinner: its answer. */
int lp_lt_reg(struct lt *t)
{
	struct pin_answer a = { .pinned = -1 };

	t->p.ops->pin(&t->p, &t->m, &a);
	t->r.reg_ns = a.pin_ns;
	t->r.vmpin[1] = lp_vmpin_kb();
	t->registered = a.held;
	if (a.result)
		lp_lt_note(t, "%s answered %d (%s)", t->p.ops->pin_call, a.result,
			lp_errno_name(a.result));
	return a.result;
}

int lp_lt_unreg(struct lt *t)
{
	struct pin_answer a = { .pinned = -1 };
	int ret = t->p.ops->unpin(&t->p, &t->m, &a);

	t->r.unreg_ns = a.unpin_ns;
	t->registered = a.held;
	/* LONGPIN_TEST_FAULT=unreg-fail: the answer of a second one */
	if (!ret && lp_test_fault("unreg-fail"))
		ret = t->p.ops->unpin(&t->p, &t->m, &a);
	if (ret)
		lp_lt_fail(t, "unregistration answered %d (%s)%s%s", ret,
			lp_errno_name(ret), a.note[0] ? ": " : "", a.note);
	return ret;
}

/* VmPin must still be what the registration made it. */
int lp_lt_pin_held(struct lt *t, const char *after)
{
	long v = lp_vmpin_kb();

	if (v == t->r.vmpin[1])
		return 0;
	lp_lt_note(t, "VmPin %ld kB after %s, %ld kB when registered", v, after,
		t->r.vmpin[1]);
	return -EIO;
}

/* Poll VmPin for up to @ms until it is back at its old value. */
long lp_lt_pin_wait(struct lt *t, unsigned int ms, unsigned int *took)
{
	return lp_vmpin_wait(t->r.vmpin[0], ms, took);
}
