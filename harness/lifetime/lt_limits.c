// SPDX-License-Identifier: GPL-2.0
/* --lifetime limits: the kernel's limits on buffers, four rows on anon. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "lifetime.h"

#define LT_MAX_BUFS	16384		/* IORING_MAX_REG_BUFFERS */
#define LT_HEADROOM	(64 * MiB)	/* left to everything else meanwhile */

/*
 * A row that pins @total bytes needs them in memory: where MemAvailable
 * is short, the OOM killer would end the process in the middle of the
 * table, so the row skips with the figures (in t->note) instead.
 */
static bool short_of_memory(struct lt *t, const char *op, size_t total)
{
	long avail_kb = lp_test_fault("mem-short") ? 0 :
			lp_meminfo_kb("MemAvailable:");

	if (avail_kb < 0 || (size_t)avail_kb * KiB >= total + LT_HEADROOM)
		return false;
	snprintf(t->note, sizeof(t->note),
		 "%s needs %zu MiB available to pin %zu MiB, MemAvailable is %ld MiB: free memory, or give the guest more (longpin-vm --mem)",
		 op, (total + LT_HEADROOM) / MiB, total / MiB, avail_kb / 1024);
	if (!t->o->quiet)
		fprintf(stderr, "longpin: lifetime limits: skip: %s\n", t->note);
	return true;
}

/* One limit row on private anon memory of @bufs x @len bytes. */
static int limit_row(struct lt *t, const char *op, unsigned int bufs,
		     size_t len, int expected)
{
	size_t total = (size_t)bufs * len, i;
	struct iovec *iov = calloc(bufs, sizeof(*iov));
	char *p;
	int ret;

	lp_lt_row_reset(t, t->ops->name, total);
	t->r.have_expected = true;
	t->r.expected = expected;
	/* a refusal pins nothing: only an expected pin needs the memory */
	if (!expected && short_of_memory(t, op, total)) {
		t->r.op = op;
		free(iov);
		return lp_row_skip(&t->r, t->o, t->note) ? LP_EUSAGE : LP_OK;
	}
	p = mmap(NULL, total, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!iov || p == MAP_FAILED) {
		free(iov);
		return lp_lt_emit(t, op, -ENOMEM);
	}
	madvise(p, total, MADV_NOHUGEPAGE);	/* VmPin exact, no head scans */
	for (i = 0; t->pf != PF_NONE && total <= GiB && i < total; i += 4096)
		p[i] = t->pf == PF_WRITE ? 1 : *(volatile char *)(p + i);
	for (i = 0; i < bufs; i++)
		iov[i] = (struct iovec){ .iov_base = p + i * len, .iov_len = len };
	ret = t->p.ops->table_pin(&t->p, iov, bufs);
	t->r.vmpin[1] = lp_vmpin_kb();
	if (!ret) {
		t->p.ops->table_unpin(&t->p);
		if (t->r.vmpin[1] - t->r.vmpin[0] != (long)(total / KiB)) {
			lp_lt_note(t, "VmPin grew %ld kB, want %zu",
				t->r.vmpin[1] - t->r.vmpin[0], total / KiB);
			ret = -EIO;
		}
	}
	t->r.vmpin[2] = lp_vmpin_kb();
	if (!ret && t->r.vmpin[2] != t->r.vmpin[0]) {
		lp_lt_note(t, "pin leak: VmPin %ld kB -> %ld kB", t->r.vmpin[0],
			t->r.vmpin[2]);
		ret = -EIO;
	}
	munmap(p, total);
	free(iov);
	lp_lt_row_counters(t);
	return lp_lt_emit(t, op, ret);
}

/*
 * The count of buffers is io_uring's ABI (IORING_MAX_REG_BUFFERS, -EINVAL
 * past it); a buffer's size limit is the kernel's own (1 GiB, -EFAULT, up
 * to 6.18; gone by 7.2), so those rows expect what the contract answers
 * for an anonymous buffer of that size (LT_CONTRACT).
 */
#define LT_CONTRACT	1

static int lt_limits(struct lt *t)
{
	int worst = LP_OK, ret, i, want;
	static const struct {
		const char *op;
		unsigned int bufs;
		size_t len;
		int expected;
	} rows[] = {
		{ "limit-nbufs-16384", LT_MAX_BUFS, 4096, 0 },
		{ "limit-nbufs-16385", LT_MAX_BUFS + 1, 4096, -EINVAL },
		{ "limit-1g", 1, GiB, LT_CONTRACT },
		{ "limit-1g+4k", 1, GiB + 4096, LT_CONTRACT },
	};
	bool nofault;

	for (i = 0; i < (int)ARRAY_SIZE(rows); i++) {
		want = rows[i].expected;
		if (want == LT_CONTRACT &&
		    !lp_contract_lookup(t->c, "anon", t->pf,
				     (size_t)rows[i].bufs * rows[i].len, &want,
				     &nofault))
			want = 0;
		ret = limit_row(t, rows[i].op, rows[i].bufs, rows[i].len, want);
		if (ret > worst)
			worst = ret;
	}
	return worst;
}

const struct lt_case lp_lt_case_limits = {
	.name = "limits",
	.help = "the kernel's limits on buffers: 16384 and 16385 buffers, 1 GiB and 1 GiB + 4 KiB, four rows on anon",
	.run = lt_limits, .own_mem = true, .no_target = true,
	.has = MEM_ANON, .lacks = MEM_THP | MEM_RDONLY,
};
