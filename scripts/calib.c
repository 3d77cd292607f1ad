// SPDX-License-Identifier: GPL-2.0
/*
 * calib: the constants of scripts/cost-profile.sh's cost model, measured
 * on this machine's CPU (x86-64) by native microbenchmarks, each repeated
 * (-r N, default 5): the median and the spread [min-max] of the repeats.
 *
 *   f_tsc       rdtsc against CLOCK_MONOTONIC_RAW (the TSC's rate, which
 *               is not the core's: constant, invariant, set at boot)
 *   f_core      a chain of dependent register-to-register adds (one
 *               cycle each on every x86 core since the P6; immediate adds
 *               are folded at rename on recent Intel cores) against the
 *               same clock: the core's clock as it runs, turbo included;
 *               no PMU needed
 *   lat_*       loads: pointer chases over a random cyclic permutation of
 *               64-byte lines (Sattolo), in 2 MiB huge pages (no TLB
 *               misses) of 16 KiB (L1), 512 KiB (L2), 3 MiB (LLC) and
 *               512 MiB (memory); walk4k / walk2m: one line per 4 KiB
 *               page at a random offset, pages in random order, 32,768
 *               pages (a 128 MiB span, 2 MiB of lines), in small pages
 *               (every load misses the data TLB) and in huge ones (none
 *               does); their difference is a page-table walk
 *   lat_lock    `lock incq` back to back on one line in L1, uncontended;
 *               lat_cmpxchg `lock cmpxchgq` the same; lat_inc the plain
 *               `incq` to memory
 *   cpi0        a long dependency-free mix, 16 instructions per block:
 *               4 loads and 2 stores hitting L1, 6 ALU ops, 2 compares
 *               with 2 never-taken branches
 *
 * and the model's constants in core cycles (per repeat, then median):
 *   CPI0 = cpi0; C_atomic = lat_lock - CPI0 (what the lock adds to an
 *   instruction already charged CPI0); C_L2, C_LLC, C_mem = lat_L2,
 *   lat_LLC, lat_mem - lat_L1 (an L1 hit is in the mix); C_walk =
 *   lat_walk4k - lat_walk2m.
 * A model constant that this machine does not give steadily, its median
 * not above 0 or its slowest repeat over UNSTEADY times its fastest (a
 * busy host, a page walk that varies tenfold, a Zen 3 whose walk in small
 * pages came out faster than in huge ones), is written "unmeasured" in
 * place of its median: the model weighs it 0 and says so, rather than
 * weigh a number the machine did not give.
 * Printed, and written to -o FILE (default $LONGPIN_CACHE/calib.txt, or
 * ~/.cache/longpin/calib.txt; -o - writes none), one "name median min max
 * unit" line each, which cost-profile.sh reads. Exit 0; 1 when it cannot
 * measure (no memory, no file); 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>
#include <cpuid.h>

#define LINE	64
#define HUGE	(2ul << 20)
#define MAXREP	50
#define UNSTEADY 1.5	/* max / min of a constant's repeats */

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* xorshift64*: the permutations only need to defeat the prefetchers */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static size_t thp_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char l[256];
	size_t kb = 0;

	while (f && fgets(l, sizeof(l), f))
		if (sscanf(l, "AnonHugePages: %zu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static bool got_huge = true;

/* LEN bytes, 2 MiB aligned, in huge pages (@huge) or small ones, touched */
static char *region(size_t len, bool huge)
{
	char *p = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *a;
	size_t before = thp_kb();

	if (p == MAP_FAILED) {
		fprintf(stderr, "calib: mmap of %zu MiB: %s\n", len >> 20, strerror(errno));
		exit(1);
	}
	a = (char *)(((uintptr_t)p + HUGE - 1) & ~(HUGE - 1));
	madvise(a, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(a, 1, len);
	if (huge && len >= HUGE && thp_kb() - before < (len >> 10) / 2)
		got_huge = false;
	return a;
}

/* a cyclic chase through the N lines of idx (byte offsets into base) */
static void *link_chase(char *base, const size_t *idx, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		*(void **)(base + idx[i]) = base + idx[(i + 1) % n];
	return base + idx[0];
}

/* Sattolo: a random permutation that is one cycle */
static void shuffle(size_t *v, size_t n)
{
	size_t i, j, t;

	for (i = n - 1; i > 0; i--) {
		j = rnd() % i;
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
}

static void *volatile sink;

/*
 * ns per load: the fastest of TRIALS timings of @steps loads, after a
 * first pass of @warm: the machine is shared (kernel builds, guests), and
 * a timing that a preemption or another tenant's burst hit is only ever
 * slower, so the minimum is the CPU's figure. So for every timing below.
 */
#define TRIALS 15
static double chase_ns(void *p, long warm, long steps)
{
	double t0, t1, best = 1e30;
	long i;
	int t;

	for (i = 0; i < warm; i++)
		p = *(void **)p;
	for (t = 0; t < TRIALS; t++) {
		t0 = now_ns();
		for (i = 0; i < steps; i += 8) {
			p = *(void **)p; p = *(void **)p; p = *(void **)p; p = *(void **)p;
			p = *(void **)p; p = *(void **)p; p = *(void **)p; p = *(void **)p;
		}
		t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	sink = p;
	return best / steps;
}

/* ns per load of a random chase over every line of SIZE bytes, huge pages */
static double lat_lines(size_t size, long warm, long steps)
{
	size_t n = size / LINE, i, *idx = malloc(n * sizeof(*idx));
	size_t len = size < HUGE ? HUGE : size;
	char *a = region(len, true);
	double ns;

	if (!idx) {
		fprintf(stderr, "calib: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++)
		idx[i] = i * LINE;
	shuffle(idx, n);
	ns = chase_ns(link_chase(a, idx, n), warm, steps);
	free(idx);
	munmap(a, len);
	return ns;
}

/* one line per 4 KiB page, random offset and order, NPAGES pages */
static double lat_walk(size_t npages, bool huge, long steps)
{
	size_t i, *idx = malloc(npages * sizeof(*idx)), len = npages * 4096;
	char *a = region(len, huge);
	double ns;
	uint64_t save = rng;

	if (!idx) {
		fprintf(stderr, "calib: out of memory\n");
		exit(1);
	}
	rng = 0x2545f4914f6cdd1dull;	/* the same layout in both page sizes */
	for (i = 0; i < npages; i++)
		idx[i] = i * 4096 + (rnd() % (4096 / LINE)) * LINE;
	shuffle(idx, npages);
	rng = save;
	ns = chase_ns(link_chase(a, idx, npages), npages, steps);
	free(idx);
	munmap(a, len);
	return ns;
}

#define REPT100(s) ".rept 100\n\t" s "\n\t.endr\n\t"

/*
 * A chain of dependent register-to-register adds: one cycle each. Not
 * `add $1, %reg`: Intel's Golden Cove and later fold small immediate
 * adds at rename, several a cycle, and this Xeon (family 6 model 207)
 * ran such a chain at 17.7 "GHz", where register adds and 3-cycle imuls
 * both give 3.0.
 */
static double add_ns(long iters)
{
	double t0, t1, best = 1e30;
	uint64_t x = 0, one = 1;
	long i;
	int t;

	for (t = 0; t < 2 * TRIALS; t++) {
		t0 = now_ns();
		for (i = 0; i < iters; i++)
			__asm__ volatile(REPT100("add %1, %0") : "+r"(x) : "r"(one));
		t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	sink = (void *)x;
	return best / (iters * 100.0);
}

static _Alignas(64) uint64_t cell[64];

static double lock_ns(long iters, int kind)
{
	double t0, t1, best = 1e30;
	long i;
	int t;

	for (t = 0; t < TRIALS; t++) {
		t0 = now_ns();
		for (i = 0; i < iters; i++) {
			if (kind == 0)
				__asm__ volatile(REPT100("lock incq (%0)") : : "r"(cell) : "memory", "cc");
			else if (kind == 1)
				__asm__ volatile(REPT100("incq (%0)") : : "r"(cell) : "memory", "cc");
			else
				__asm__ volatile("mov (%0), %%rax\n\t"
						 REPT100("lock cmpxchgq %%rcx, (%0)")
						 : : "r"(cell), "c"(1ul) : "rax", "memory", "cc");
		}
		t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best / (iters * 100.0);
}

/* 16 instructions a block, no dependency between blocks but the adds' */
static double mix_ns(long iters)
{
	double t0, t1, best = 1e30;
	long i;
	int t;

	cell[0] = cell[1] = cell[2] = cell[3] = 7;
	for (t = 0; t < 2 * TRIALS; t++) {
		t0 = now_ns();
		for (i = 0; i < iters; i++)
			__asm__ volatile(
				"xor %%r15d, %%r15d\n\t"
				".rept 50\n\t"
				"mov (%0), %%r8\n\t"
				"mov 8(%0), %%r9\n\t"
				"mov 16(%0), %%r10\n\t"
				"mov 24(%0), %%r11\n\t"
				"mov %%r8, 64(%0)\n\t"
				"mov %%r9, 72(%0)\n\t"
				"add $1, %%rax\n\t"
				"add $1, %%rbx\n\t"
				"add $1, %%rcx\n\t"
				"add $1, %%rdx\n\t"
				"lea 1(%%r8), %%r12\n\t"
				"shl $1, %%r14\n\t"
				"cmp %%r9, %%r10\n\t"
				"jne 1f\n\t"
				"1: test %%r15, %%r15\n\t"
				"jnz 2f\n\t"
				"2:\n\t"
				".endr\n\t"
				: : "r"(cell)
				: "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11",
				  "r12", "r14", "r15", "memory", "cc");
		t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best / (iters * 50.0 * 16);
}

static double tsc_ghz(void)
{
	double t0 = now_ns(), t1;
	uint64_t c0 = __rdtsc(), c1;

	do
		t1 = now_ns();
	while (t1 - t0 < 20e6);
	c1 = __rdtsc();
	return (c1 - c0) / (t1 - t0);
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stat3 { double med, min, max; };

static struct stat3 stat3(const double *v, int n)
{
	double s[MAXREP];
	struct stat3 r;

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmpd);
	r.min = s[0];
	r.max = s[n - 1];
	r.med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return r;
}

/* a model constant this machine did not give steadily (see the top) */
static bool unsteady(const struct stat3 *s)
{
	return s->med <= 0 || s->min <= 0 || s->max > UNSTEADY * s->min;
}

enum { F_TSC, F_CORE, L1, L2, LLC, MEM, W4K, W2M, LOCK, CMPX, INC, MIX,
	CPI0, C_ATOMIC, C_L2, C_LLC, C_MEM, C_WALK, NQ };
static const struct { const char *name, *unit, *what; } q[NQ] = {
	[F_TSC] = { "f_tsc", "GHz", "TSC rate (rdtsc against CLOCK_MONOTONIC_RAW)" },
	[F_CORE] = { "f_core", "GHz", "core clock (dependent adds, 1 cycle each)" },
	[L1] = { "lat_l1", "cycles", "load, chase over 16 KiB (L1 hit)" },
	[L2] = { "lat_l2", "cycles", "load, chase over 512 KiB (L2 hit)" },
	[LLC] = { "lat_llc", "cycles", "load, chase over 3 MiB (LLC hit)" },
	[MEM] = { "lat_mem", "cycles", "load, chase over 512 MiB (memory)" },
	[W4K] = { "lat_walk4k", "cycles", "load, a line per page, 32768 small pages (DTLB miss)" },
	[W2M] = { "lat_walk2m", "cycles", "load, the same lines in huge pages (DTLB hit)" },
	[LOCK] = { "lat_lock", "cycles", "lock incq, one L1 line, back to back" },
	[CMPX] = { "lat_cmpxchg", "cycles", "lock cmpxchgq, one L1 line, back to back" },
	[INC] = { "lat_inc", "cycles", "plain incq to memory, one L1 line, back to back" },
	[MIX] = { "mix_ns", "ns", "dependency-free mix, ns per instruction" },
	[CPI0] = { "CPI0", "cycles", "cycles per instruction of the mix" },
	[C_ATOMIC] = { "C_atomic", "cycles", "lat_lock - CPI0" },
	[C_L2] = { "C_L2", "cycles", "lat_l2 - lat_l1" },
	[C_LLC] = { "C_LLC", "cycles", "lat_llc - lat_l1" },
	[C_MEM] = { "C_mem", "cycles", "lat_mem - lat_l1" },
	[C_WALK] = { "C_walk", "cycles", "lat_walk4k - lat_walk2m" },
};

static void usage(void)
{
	fprintf(stderr, "usage: calib [-r REPEATS (1-%d, default 5)] [-o FILE|-]\n", MAXREP);
	exit(2);
}

int main(int argc, char **argv)
{
	double v[NQ][MAXREP];
	const char *out = NULL, *cache;
	char path[4096], model[64] = "";
	unsigned int a, b, c, d, fam, mod;
	int reps = 5, r, i, opt;
	struct stat3 s[NQ];
	FILE *f;

	while ((opt = getopt(argc, argv, "r:o:")) != -1) {
		if (opt == 'r') {
			char *e;

			reps = strtol(optarg, &e, 10);
			if (*e || reps < 1 || reps > MAXREP)
				usage();
		} else if (opt == 'o') {
			out = optarg;
		} else {
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!out) {
		cache = getenv("LONGPIN_CACHE");
		if (cache && *cache)
			snprintf(path, sizeof(path), "%s/calib.txt", cache);
		else
			snprintf(path, sizeof(path), "%s/.cache/longpin/calib.txt",
				 getenv("HOME") ? getenv("HOME") : ".");
		out = path;
	}
	for (i = 0; i < 3; i++) {
		__cpuid(0x80000002 + i, a, b, c, d);
		memcpy(model + 16 * i, &a, 4);
		memcpy(model + 16 * i + 4, &b, 4);
		memcpy(model + 16 * i + 8, &c, 4);
		memcpy(model + 16 * i + 12, &d, 4);
	}
	model[48] = 0;
	__cpuid(1, a, b, c, d);
	fam = ((a >> 8) & 15) + (((a >> 8) & 15) == 15 ? (a >> 20) & 255 : 0);
	mod = ((a >> 4) & 15) | (((a >> 8) & 15) >= 6 ? ((a >> 16) & 15) << 4 : 0);

	for (r = 0; r < reps; r++) {
		double ghz;

		v[F_TSC][r] = tsc_ghz();
		v[F_CORE][r] = 1 / add_ns(2000);
		ghz = v[F_CORE][r];
		v[L1][r] = lat_lines(16 << 10, 1 << 16, 1 << 18) * ghz;
		v[L2][r] = lat_lines(512 << 10, 1 << 16, 1 << 18) * ghz;
		v[LLC][r] = lat_lines(3 << 20, 1 << 16, 1 << 17) * ghz;
		v[MEM][r] = lat_lines(512 << 20, 1 << 14, 1 << 16) * ghz;
		v[W4K][r] = lat_walk(32768, false, 1 << 16) * ghz;
		v[W2M][r] = lat_walk(32768, true, 1 << 16) * ghz;
		v[LOCK][r] = lock_ns(1000, 0) * ghz;
		v[CMPX][r] = lock_ns(1000, 2) * ghz;
		v[INC][r] = lock_ns(1000, 1) * ghz;
		v[MIX][r] = mix_ns(500);
		v[CPI0][r] = v[MIX][r] * ghz;
		v[C_ATOMIC][r] = v[LOCK][r] - v[CPI0][r];
		v[C_L2][r] = v[L2][r] - v[L1][r];
		v[C_LLC][r] = v[LLC][r] - v[L1][r];
		v[C_MEM][r] = v[MEM][r] - v[L1][r];
		v[C_WALK][r] = v[W4K][r] - v[W2M][r];
	}
	for (i = 0; i < NQ; i++)
		s[i] = stat3(v[i], reps);

	f = strcmp(out, "-") ? fopen(out, "w") : NULL;
	if (strcmp(out, "-") && !f) {
		fprintf(stderr, "calib: cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	for (int pass = 0; pass < 2; pass++) {
		FILE *o = pass ? f : stdout;

		if (!o)
			continue;
		fprintf(o, "# scripts/calib.c on %s (family %u model %u), %d repeats: median min max\n",
			model, fam, mod, reps);
		if (!got_huge)
			fprintf(o, "# warning: no transparent huge pages: the chases include TLB misses\n");
		for (i = 0; i < NQ; i++) {
			if (i >= CPI0 && unsteady(&s[i])) {
				fprintf(o, "%-12s %9s %9.3f %9.3f %-6s # %s: unmeasured, %s: not weighed\n",
					q[i].name, "unmeasured", s[i].min, s[i].max,
					q[i].unit, q[i].what,
					s[i].med <= 0 ? "its median is not above 0" :
					"its repeats differ by more than x1.5");
				continue;
			}
			fprintf(o, "%-12s %9.3f %9.3f %9.3f %-6s # %s\n", q[i].name,
				s[i].med, s[i].min, s[i].max, q[i].unit, q[i].what);
		}
	}
	if (f && fclose(f)) {
		fprintf(stderr, "calib: cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	if (f)
		fprintf(stderr, "calib: written to %s\n", out);
	return 0;
}
