// SPDX-License-Identifier: GPL-2.0
/* --lifetime memlock: registration under RLIMIT_MEMLOCK. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>

#include "lifetime.h"

/*
 * How many kB this user may still have charged: the largest anon buffer
 * of 4 KiB pages that registers (binary search up to @limit). What the
 * limit leaves out is charged already: this ring (6.18 charges its
 * rings), other rings of the same user, rings still being torn down.
 */
static long headroom_kb(struct lt *t, size_t limit)
{
	size_t lo = 0, hi = limit / 4096, mid;
	struct iovec iov;
	int ret = 0;
	char *p;

	p = mmap(NULL, limit, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	madvise(p, limit, MADV_NOHUGEPAGE);
	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		iov = (struct iovec){ .iov_base = p, .iov_len = mid * 4096 };
		ret = t->p.ops->table_pin(&t->p, &iov, 1);
		if (ret && ret != -ENOMEM)
			break;
		if (!ret)
			t->p.ops->table_unpin(&t->p);
		if (!ret)
			lo = mid;
		else
			hi = mid - 1;
	}
	munmap(p, limit);
	return ret && ret != -ENOMEM ? ret : (long)(lo * 4);
}

/*
 * Register under RLIMIT_MEMLOCK: the kernel answers -ENOMEM when the
 * buffer does not fit in what the limit leaves (headroom_kb()).
 */
static int lt_memlock(struct lt *t)
{
	size_t kb = t->m.len / KiB, lim_kb;
	bool limited;
	long room = -1;
	struct rlimit rl;
	int ret;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return -errno;
	lim_kb = rl.rlim_cur / KiB;
	limited = !lp_have_cap_ipc_lock() && rl.rlim_cur != RLIM_INFINITY &&
		  rl.rlim_cur <= GiB;
	if (limited) {
		room = headroom_kb(t, rl.rlim_cur);
		if (room < 0)
			return room;
		lp_lt_note(t, "RLIMIT_MEMLOCK %zu kB; charged already %zu kB; buffer %zu kB",
			lim_kb, lim_kb - room, kb);
	} else {
		lp_lt_note(t, "%s: not charged against a limit",
			lp_have_cap_ipc_lock() ? "CAP_IPC_LOCK" : "RLIMIT_MEMLOCK unlimited or above 1 GiB");
	}
	lp_lt_expect(t);
	if (limited && (long)kb > room) {
		t->r.have_expected = true;
		t->r.expected = -ENOMEM;
	}
	t->unchecked = !t->r.have_expected;
	ret = lp_lt_reg(t);
	if (ret == -ENOMEM && limited)
		lp_err(0, "the kernel refused %zu kB with -ENOMEM: RLIMIT_MEMLOCK is %zu kB and %zu kB are charged already: it needs at least %zu kB (`ulimit -l %zu`)",
		       kb, lim_kb, lim_kb - room, kb + lim_kb - room,
		       kb + lim_kb - room);
	if (!ret)
		lp_lt_unreg(t);
	return ret;
}

const struct lt_case lp_lt_case_memlock = {
	.name = "memlock",
	.help = "register under RLIMIT_MEMLOCK: -ENOMEM exactly when the buffer does not fit what the limit leaves",
	.run = lt_memlock, .no_target = true,
	.refused_too = true, .no_memlock_check = true,
};
