// SPDX-License-Identifier: GPL-2.0
/*
 * --pinner gup-fast and gup: GUP's own long-term pins, through the
 * gup_test ioctls of debugfs (CONFIG_GUP_TEST). gup-fast is
 * PIN_FAST_BENCHMARK with FOLL_LONGTERM, i.e. pin_user_pages_fast() as
 * RDMA drivers call it (the seed "Add FOLL_LONGTERM to GUP fast");
 * gup is PIN_LONGTERM_BENCHMARK, pin_user_pages(FOLL_LONGTERM) under
 * mmap_lock, as vfio and 6.1's io_uring call it. Both add FOLL_WRITE
 * unless --readonly-pin.
 *
 * gup_test pins and unpins within one ioctl and stops at the first call
 * that pins nothing, without its errno. So the answer is counted page by
 * page (one page per call: the bytes it walked are the pages pinned):
 * 0, -REFUSED (none) or -PARTIAL (some); and the figures come from a
 * first ioctl over the whole buffer in one call, as a real pinner asks,
 * timed by gup_test itself (get_delta_usec, put_delta_usec: whole
 * microseconds).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "gup_test.h"
#include "kflags.h"
#include "longpin.h"
#include "pinner.h"

#define GUP_TEST_PATH	"/sys/kernel/debug/gup_test"
#define DEBUGFS_DIR	"/sys/kernel/debug"
#define LP_DEBUGFS_MAGIC 0x64626720

/* Why gup_test cannot be opened, as a skip naming the fix. */
static int gup_open_err(const char *name, int err)
{
	struct statfs sf;

	if (err == EACCES || err == EPERM)
		return lp_err(LP_SKIP,
			      "--pinner %s: %s: %s: run as root", name,
			      GUP_TEST_PATH, strerror(err));
	if (err != ENOENT)
		return lp_err(LP_EUSAGE, "--pinner %s: %s: %s", name,
			      GUP_TEST_PATH, strerror(err));
	if (statfs(DEBUGFS_DIR, &sf) || sf.f_type != LP_DEBUGFS_MAGIC)
		return lp_err(LP_SKIP,
			      "--pinner %s: debugfs is not mounted: mount -t debugfs none %s",
			      name, DEBUGFS_DIR);
	return lp_err(LP_SKIP,
		      "--pinner %s: this kernel has no %s (CONFIG_GUP_TEST=n, as in Debian's images): use a kernel built with it (vm/: stock, patched)",
		      name, GUP_TEST_PATH);
}

static int gup_open(struct pinner *p)
{
	p->fd = open(GUP_TEST_PATH, O_RDWR | O_CLOEXEC);
	return p->fd < 0 ? gup_open_err(p->info->name, errno) : LP_OK;
}

static void gup_close(struct pinner *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/*
 * gup-fast passes its flags as they are, so FOLL_LONGTERM must be the
 * running kernel's: asked of the kernel once (kflags.c); 0 when it
 * cannot say, and @why then says where it was looked for
 */
static unsigned int foll_longterm(char *why, size_t n)
{
	static unsigned int flag;
	static char src[PATH_MAX + 128];
	static bool asked;

	if (!asked) {
		if (lp_kernel_foll_flag("FOLL_LONGTERM", &flag, src, sizeof(src)))
			flag = 0;
		asked = true;
	}
	if (why)
		snprintf(why, n, "%s", src);
	return flag;
}

static int gup_fast_open(struct pinner *p)
{
	char why[PATH_MAX + 128];
	int ret = gup_open(p);

	if (ret != LP_OK || foll_longterm(why, sizeof(why)))
		return ret;
	gup_close(p);
	return lp_err(LP_SKIP,
		      "--pinner gup-fast: kernel %s does not say FOLL_LONGTERM's value: %s: use --pinner gup, or give the kernel BTF or its headers",
		      lp_kernel_release(), why);
}

/* One PIN_* ioctl over @m, @per_call pages a call; 0 or -errno. */
static int gup_ioctl(const struct pinner *p, struct mem *m,
		     unsigned int per_call, struct gup_test *g)
{
	bool fast = p->ops == &lp_pin_gup_fast_ops;

	*g = (struct gup_test){
		.addr = (uintptr_t)m->addr,
		.size = m->len,
		.nr_pages_per_call = per_call,
		.gup_flags = (p->write ? LP_FOLL_WRITE : 0) |
			     (fast ? foll_longterm(NULL, 0) : 0),
	};
	if (ioctl(p->fd, fast ? PIN_FAST_BENCHMARK : PIN_LONGTERM_BENCHMARK, g))
		return -errno;
	return 0;
}

/*
 * 6.1.192's GUP hands back the zero page of a read-only pin without
 * pinning it (Debian's backport of upstream c8070b787519), and gup_test
 * then warns "pages[N] is NOT dma-pinned" (mm/gup_test.c:50) and dumps
 * it, once per ioctl. After a read-only pin of a buffer that maps the
 * zero page (faulted in by the pin itself when it was untouched), say so
 * in the kernel log: how many PTEs, which pfns, how many warnings
 * (GUP_IOCTLS); vm/lib/reports.sh allows such a warning only when it
 * dumps one of the pfns announced, and no more of them than announced.
 */
#define GUP_IOCTLS	2

static void zero_announce(const struct pinner *p, const struct mem *m)
{
	char msg[256];
	struct zero_pfns z;
	size_t len;
	long n;
	int i, fd;

	if (p->write)
		return;
	n = lp_zero_page_ptes(m->addr, m->len, &z);
	if (n <= 0)
		return;
	len = snprintf(msg, sizeof(msg),
		       "<5>longpin: a read-only pin over %ld zero-page PTEs (pfn", n);
	for (i = 0; i < z.nranges && len < sizeof(msg); i++)
		len += snprintf(msg + len, sizeof(msg) - len,
				z.lo[i] == z.hi[i] ? " %#llx" : " %#llx-%#llx",
				(unsigned long long)z.lo[i],
				(unsigned long long)z.hi[i]);
	if (len < sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len,
			 "): gup_test may warn 'is NOT dma-pinned' up to %d times\n",
			 GUP_IOCTLS);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, msg, strlen(msg)) < 0)
		lp_warn("cannot log the zero-page pin to /dev/kmsg: %s",
			strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int gup_pin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	size_t pg = sysconf(_SC_PAGESIZE), pages = m->len / pg;
	double kpages = m->len / 4096.0;
	struct gup_test g;
	int ret;

	/* the whole buffer in one call: the figures */
	ret = gup_ioctl(p, m, pages, &g);
	if (ret) {
		a->result = ret;	/* the ioctl itself: -ENOMEM, ... */
		goto out;
	}
	a->pin_ns = g.get_delta_usec * 1000.0 / kpages;
	a->unpin_ns = g.put_delta_usec * 1000.0 / kpages;
	/* page by page: the answer; both calls pinned the whole buffer */
	a->tried = 2 * (long)kpages;
	ret = gup_ioctl(p, m, 1, &g);
	if (ret) {
		a->result = ret;
		goto out;
	}
	a->pinned = g.size / pg * (pg / 4096);
	a->result = g.size == m->len ? 0 : g.size ? -LP_PARTIAL : -LP_REFUSED;
	if (a->result == -LP_PARTIAL)
		snprintf(a->note, sizeof(a->note), "pinned %llu of %zu pages",
			 (unsigned long long)(g.size / pg), pages);
out:
	zero_announce(p, m);
	return LP_OK;
}

/* gup_test unpins within its ioctl: no unpin(), nothing held to test */
const struct pinner_ops lp_pin_gup_fast_ops = {
	.open = gup_fast_open,
	.pin = gup_pin,
	.close = gup_close,
	.readonly = true,
};

const struct pinner_ops lp_pin_gup_ops = {
	.open = gup_open,
	.pin = gup_pin,
	.close = gup_close,
	.readonly = true,
};
