// SPDX-License-Identifier: GPL-2.0
/* --lifetime unreg-inflight, close-ring: unpinning with I/O or a ring around. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "lifetime.h"

/* Reap @n completions (10 s each at most); counts those of @bs bytes. */
static int reap(struct lt *t, unsigned int n, unsigned int bs,
		unsigned int *good)
{
	int ret = 0, err, res;
	unsigned int i;

	for (*good = 0, i = 0; i < n; i++) {
		err = t->p.ops->io_reap(&t->p, 10000, &res);
		if (err) {
			lp_lt_note(t, "%u of %u completions, then %s", i, n,
				lp_errno_name(err));
			return err;
		}
		if (res == (int)bs)
			(*good)++;
		else if (!ret)
			ret = res < 0 ? res : -EIO;
	}
	return ret;
}

/* Unregister while READ_FIXED are in flight: it returns, all complete. */
static int lt_unreg_inflight(struct lt *t)
{
	unsigned int bs = t->o->bs, n = LT_INFLIGHT, good, ready;
	char *buf = t->m.addr;
	uint64_t t0;
	int ret, uret;

	if (n > t->m.len / bs)
		n = t->m.len / bs;
	if (n > t->chk / bs)
		n = t->chk / bs;
	if (!n)
		return -EINVAL;
	ret = lp_lt_reg(t);
	if (ret)
		return ret;
	ret = t->p.ops->io_start(&t->p, t->tfd, buf, bs, n);
	if (ret != (int)n)
		return ret < 0 ? ret : -EIO;
	ready = t->p.ops->io_ready(&t->p);
	t0 = lp_now_ns();
	uret = lp_lt_unreg(t);
	lp_lt_note(t, "unregistered in %.0f us with %u of %u READ_FIXED completed",
		(lp_now_ns() - t0) / 1e3, ready, n);
	ret = reap(t, n, bs, &good);
	if (uret)
		return uret;
	if (ret)
		return ret;
	if (good != n)
		return -EIO;
	if (memcmp(buf, t->want, (size_t)n * bs)) {
		lp_lt_note(t, "data check: READ_FIXED data");
		strcpy(t->check, "mismatch");
		return -EIO;
	}
	return 0;
}

/* Close the pinner still pinned: its teardown (asynchronous) unpins. */
static int lt_close_ring(struct lt *t)
{
	unsigned int took;
	long v;
	int ret = lp_lt_reg(t);

	if (ret)
		return ret;
	lp_pinner_close(&t->p);
	t->registered = false;
	v = lp_lt_pin_wait(t, 5000, &took);
	t->r.vmpin[2] = v;
	if (v != t->r.vmpin[0]) {
		lp_lt_note(t, "VmPin %ld kB 5 s after the ring's exit, %ld kB before",
			v, t->r.vmpin[0]);
		return -EIO;
	}
	lp_lt_note(t, "VmPin back %u ms after the ring's exit", took);
	return 0;
}

const struct lt_case lp_lt_case_unreg_inflight = {
	.name = "unreg-inflight",
	.checks_data = true,
	.help = "unregister while READ_FIXED are in flight: it returns, every one completes with its data",
	.run = lt_unreg_inflight,
	.skip_flags = MEM_RDONLY, .why_flags = "the buffer is read-only",
};

const struct lt_case lp_lt_case_close_ring = {
	.name = "close-ring",
	.help = "close the ring still registered: its teardown unpins, VmPin comes back",
	.run = lt_close_ring,
	.own_unpin_check = true,
};
