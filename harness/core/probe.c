// SPDX-License-Identifier: GPL-2.0
/* What the kernel tells about pins, pages and capabilities. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "longpin.h"

/* /proc/self/pagemap's entry: present, and the frame (root only) */
#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)

/* Value of "KEY: N kB" in a /proc file, or -1. */
static long proc_kv(const char *path, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen)) {
			v = strtol(line + klen, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

long lp_vmpin_kb(void)
{
	return proc_kv("/proc/self/status", "VmPin:");
}

/* locked_vm, which vfio charges its DMA maps to (and mlock()) */
long lp_vmlck_kb(void)
{
	return proc_kv("/proc/self/status", "VmLck:");
}

/* Poll VmPin for up to @ms until it is @want again; returns the last value. */
long lp_vmpin_wait(long want, unsigned int ms, unsigned int *took)
{
	long v = lp_vmpin_kb();

	for (*took = 0; v != want && *took < ms; *took += 10) {
		usleep(10000);
		v = lp_vmpin_kb();
	}
	return v;
}

long lp_meminfo_kb(const char *key)
{
	return proc_kv("/proc/meminfo", key);
}

/*
 * nr_foll_pin_acquired/released are batched per CPU; writing
 * /proc/sys/vm/stat_refresh (root only) folds the batches first.
 */
int lp_vmstat_pins(long *acquired, long *released)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);

	if (fd >= 0) {
		/* not root: the per-CPU batches stay, values are approximate */
		ssize_t n = write(fd, "1", 1);

		(void)n;
		close(fd);
	}
	*acquired = proc_kv("/proc/vmstat", "nr_foll_pin_acquired ");
	*released = proc_kv("/proc/vmstat", "nr_foll_pin_released ");
	return *acquired >= 0 && *released >= 0 ? 0 : -ENOENT;
}

static void smaps_add(struct smaps_sum *s, const char *line)
{
	long v;

	if (sscanf(line, "Rss: %ld", &v) == 1)
		s->rss_kb += v;
	else if (sscanf(line, "Shared_Dirty: %ld", &v) == 1)
		s->dirty_kb += v;
	else if (sscanf(line, "Private_Dirty: %ld", &v) == 1)
		s->dirty_kb += v;
	else if (sscanf(line, "AnonHugePages: %ld", &v) == 1)
		s->anon_huge_kb += v;
}

/* Sum the smaps fields of every VMA overlapping [addr, addr + len). */
int lp_smaps_range(const void *addr, size_t len, struct smaps_sum *s)
{
	unsigned long lo = (unsigned long)addr, hi = lo + len, a, b;
	char line[512];
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	memset(s, 0, sizeof(*s));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			in = a < hi && b > lo;
			continue;
		}
		if (in)
			smaps_add(s, line);
	}
	fclose(f);
	return 0;
}

/* Pages of [addr, addr + len) resident in memory (page cache for files). */
long lp_resident_pages(void *addr, size_t len)
{
	size_t pg = sysconf(_SC_PAGESIZE), n = (len + pg - 1) / pg, i;
	unsigned char *vec = malloc(n);
	long count = 0;

	if (!vec)
		return -1;
	if (mincore(addr, len, vec)) {
		free(vec);
		return -1;
	}
	for (i = 0; i < n; i++)
		count += vec[i] & 1;
	free(vec);
	return count;
}

/*
 * mincore() of [addr, addr + len) into @vec (one byte a page, bit 0:
 * resident); 0 or -errno.
 */
int lp_resident_map(void *addr, size_t len, unsigned char *vec)
{
	return mincore(addr, len, vec) ? -errno : 0;
}

/*
 * The page frame of each 4 KiB page of [addr, addr + len) into @pfn (0:
 * not present); -1 when pagemap shows no frames (not root, or no
 * CONFIG_PROC_PAGE_MONITOR), else 0.
 */
int lp_page_frames(const void *addr, size_t len, uint64_t *pfn)
{
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	size_t i, n = len / 4096;
	uint64_t e;
	bool shown = false;
	int ret = 0;

	if (pm < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (pread(pm, &e, 8, ((uintptr_t)addr / 4096 + i) * 8) != 8) {
			ret = -1;
			break;
		}
		pfn[i] = e & PM_PRESENT ? e & PM_PFN_MASK : 0;
		shown |= pfn[i] != 0;
	}
	close(pm);
	/* present pages with no frame: pagemap hides them from non-root */
	return ret ? ret : shown || !n ? 0 : -1;
}

/* Pages of [addr, addr + len) that a device-dax file maps (/proc/self/maps). */
long lp_devdax_pages(const void *addr, size_t len)
{
	unsigned long lo = (unsigned long)addr, hi = lo + len, a, b;
	char line[512], path[256];
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &a, &b, path) < 2)
			continue;
		if (a >= hi || b <= lo || strncmp(path, "/dev/dax", 8))
			continue;
		n += ((b < hi ? b : hi) - (a > lo ? a : lo)) / 4096;
	}
	fclose(f);
	return n;
}

bool lp_have_cap_ipc_lock(void)
{
	char line[256];
	unsigned long long eff = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << 14);	/* CAP_IPC_LOCK */
}

/*
 * vm events of the patched kernel (kernel-patches/), in /proc/vmstat:
 * FOLL_LONGTERM pages pinned by GUP-fast and by the slow path, and
 * long-term pins refused for fsdax and for file mappings.
 */
const char *const lp_kcounter_names[LP_NR_KCOUNTERS] = {
	"gup_longterm_fast_pages", "gup_longterm_slow_pages",
	"gup_longterm_refused_fsdax", "gup_longterm_refused_file",
};

/* Value of "NAME N" in /proc/vmstat, or -1. */
long lp_vmstat_value(const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "%s ", name);
	return proc_kv("/proc/vmstat", key);
}

bool lp_kcounters_present(void)
{
	return lp_vmstat_value(lp_kcounter_names[0]) >= 0;
}

int lp_kcounters_read(long out[LP_NR_KCOUNTERS])
{
	int i;

	for (i = 0; i < LP_NR_KCOUNTERS; i++) {
		out[i] = lp_vmstat_value(lp_kcounter_names[i]);
		if (out[i] < 0)
			return -ENOENT;
	}
	return 0;
}

#define KPF_ZERO_PAGE	24

/* Is @pfn the zero page or part of the huge zero page (/proc/kpageflags)? */
static bool pfn_is_zero(int kpf, uint64_t pfn)
{
	uint64_t flags;

	if (pread(kpf, &flags, 8, pfn * 8) != 8)
		return false;
	return flags & (1ULL << KPF_ZERO_PAGE);
}

/* Add @pfn to the ranges of @z ("0x2a4b 0x10000-0x101ff"). */
static void zero_add(struct zero_pfns *z, uint64_t pfn)
{
	int i;

	for (i = 0; i < z->nranges; i++) {
		if (pfn >= z->lo[i] && pfn <= z->hi[i])
			return;
		if (pfn == z->hi[i] + 1) {
			z->hi[i] = pfn;
			return;
		}
	}
	if (z->nranges < LP_ZERO_RANGES) {
		z->lo[z->nranges] = z->hi[z->nranges] = pfn;
		z->nranges++;
	}
}

/*
 * How many 4 KiB pages of [@addr, +@len) map the zero page or the huge
 * zero page, and at which pfns (as root: /proc/self/pagemap gives pfns,
 * /proc/kpageflags says KPF_ZERO_PAGE). -1: not known (not root, no
 * CONFIG_PROC_PAGE_MONITOR).
 */
long lp_zero_page_ptes(const void *addr, size_t len, struct zero_pfns *z)
{
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int kpf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	uint64_t e, pfn, last = 0;
	long n = -1;
	size_t i;

	z->nranges = 0;
	if (pm < 0 || kpf < 0)
		goto out;
	for (i = 0, n = 0; i < len / 4096; i++) {
		if (pread(pm, &e, 8, ((uintptr_t)addr / 4096 + i) * 8) != 8) {
			n = -1;
			break;
		}
		pfn = e & PM_PFN_MASK;
		if (!(e & PM_PRESENT) || !pfn)
			continue;	/* not mapped, or no pfns shown: not root */
		if (pfn != last && !pfn_is_zero(kpf, pfn))
			continue;
		last = pfn;
		zero_add(z, pfn);
		n++;
	}
out:
	if (pm >= 0)
		close(pm);
	if (kpf >= 0)
		close(kpf);
	return n;
}
