// SPDX-License-Identifier: GPL-2.0
/*
 * cachesim.c: the data-cache hierarchy and data TLB that costprof.c (a
 * QEMU TCG plugin, scripts/cost-profile.sh) runs every kernel access
 * through. The model, its sizes and what it leaves out: costprof.c's
 * header and docs/benchmarks.md "The cost model".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim.h"

/* ---- set-associative LRU ------------------------------------------- */
struct cache {
	unsigned int sets, ways;
	uint64_t *tag;			/* sets x ways; 0: empty (tags are +1) */
	uint64_t *stamp;
};

static uint64_t clk;

static void cache_init(struct cache *c, uint64_t bytes, unsigned int ways, unsigned int unit)
{
	c->ways = ways;
	c->sets = bytes / unit / ways;
	c->tag = calloc((size_t)c->sets * ways, sizeof(*c->tag));
	c->stamp = calloc((size_t)c->sets * ways, sizeof(*c->stamp));
	if (!c->tag || !c->stamp) {
		fprintf(stderr, "costprof: out of memory\n");
		exit(1);
	}
}

/* look KEY up; a hit refreshes it. Returns whether it hit. */
static bool cache_hit(struct cache *c, uint64_t key)
{
	uint64_t *t = c->tag + (key % c->sets) * c->ways, k = key + 1;
	unsigned int i;

	for (i = 0; i < c->ways; i++)
		if (t[i] == k) {
			c->stamp[t - c->tag + i] = ++clk;
			return true;
		}
	return false;
}

static void cache_fill(struct cache *c, uint64_t key)
{
	size_t base = (key % c->sets) * c->ways, v = base;
	unsigned int i;

	for (i = 0; i < c->ways; i++) {
		if (!c->tag[base + i]) {
			v = base + i;
			break;
		}
		if (c->stamp[base + i] < c->stamp[v])
			v = base + i;
	}
	c->tag[v] = key + 1;
	c->stamp[v] = ++clk;
}

static void cache_inval(struct cache *c, uint64_t key)
{
	uint64_t *t = c->tag + (key % c->sets) * c->ways, k = key + 1;
	unsigned int i;

	for (i = 0; i < c->ways; i++)
		if (t[i] == k)
			t[i] = 0;
}

static struct cache l1[SIM_NCPU], l2[SIM_NCPU], llc, tlb2[SIM_NCPU];
static unsigned int ncpu = 2;

/*
 * Which vCPUs may hold a line in their L1 or L2, by a hash of the line: a
 * store looks into the other vCPUs' caches only where the filter says one
 * filled it since the last store (a collision costs a look, no more).
 */
#define FILTER_BITS 22
static uint8_t filter[1u << FILTER_BITS];
static inline uint8_t *filt(uint64_t line)
{
	return &filter[(line * 0x9e3779b97f4a7c15ull) >> (64 - FILTER_BITS)];
}


/*
 * The fully associative L1 DTLB: LRU by stamps, found through a small
 * open-addressed hash of its keys (linear probing, backward-shift
 * deletion), so that a hit costs no scan of the 96 entries.
 */
#define TLB1 SIM_TLB1
#define TH 256
static struct tlb1 { uint64_t key[TLB1], stamp[TLB1]; int16_t h[TH]; } tlb1[SIM_NCPU];

static inline unsigned int th(uint64_t key)
{
	return (key * 0x9e3779b97f4a7c15ull) >> 56;
}

static int tlb1_find(struct tlb1 *t, uint64_t key)
{
	unsigned int i = th(key);

	for (; t->h[i] >= 0; i = (i + 1) % TH)
		if (t->key[t->h[i]] == key)
			return t->h[i];
	return -1;
}

static void tlb1_unhash(struct tlb1 *t, uint64_t key)
{
	unsigned int i = th(key), j, k;

	while (t->h[i] >= 0 && t->key[t->h[i]] != key)
		i = (i + 1) % TH;
	if (t->h[i] < 0)
		return;
	for (j = i;;) {
		j = (j + 1) % TH;
		if (t->h[j] < 0)
			break;
		k = th(t->key[t->h[j]]);
		/* move j's entry into the hole at i unless its home lies in (i, j] */
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			t->h[i] = t->h[j];
			i = j;
		}
	}
	t->h[i] = -1;
}

/* the level the line LINE was found at: 1, 2, 3 (LLC) or 4 (memory) */
int cache_access(unsigned int cpu, uint64_t line, bool store)
{
	int lvl;
	unsigned int o;
	uint8_t *f;

	if (cache_hit(&l1[cpu], line)) {
		lvl = 1;
	} else if (cache_hit(&l2[cpu], line)) {
		cache_fill(&l1[cpu], line);
		lvl = 2;
	} else {
		lvl = cache_hit(&llc, line) ? 3 : 4;
		if (lvl == 4)
			cache_fill(&llc, line);
		cache_fill(&l2[cpu], line);
		cache_fill(&l1[cpu], line);
	}
	f = filt(line);
	if (store && (*f & ~(1u << cpu)))
		for (o = 0; o < ncpu; o++)
			if (o != cpu) {
				cache_inval(&l1[o], line);
				cache_inval(&l2[o], line);
			}
	if (store)
		*f = 1u << cpu;
	else if (lvl > 1)
		*f |= 1u << cpu;
	return lvl;
}

static unsigned int page_shift(uint64_t va)
{
	if (va < SIM_KERNEL)
		return 12;				/* user */
	if (va >= 0xffff888000000000ull && va < 0xffffc88000000000ull)
		return 21;				/* direct map */
	if (va >= 0xffffea0000000000ull && va < 0xffffeb0000000000ull)
		return 21;				/* vmemmap */
	if (va >= 0xffffffff80000000ull && va < 0xffffffffa0000000ull)
		return 21;				/* kernel image */
	return 12;		/* vmalloc, modules, fixmap, cpu_entry_area */
}

/* whether the access at VA walked the page tables */
bool tlb_access(unsigned int cpu, uint64_t va)
{
	struct tlb1 *t = &tlb1[cpu];
	unsigned int s = page_shift(va), i, v = 0;
	uint64_t key = (va >> s) | (uint64_t)(s == 21) << 62;
	int e = tlb1_find(t, key + 1);
	bool walk;

	if (e >= 0) {
		t->stamp[e] = ++clk;
		return false;
	}
	for (i = 1; i < TLB1; i++)
		if (t->stamp[i] < t->stamp[v])
			v = i;
	walk = !cache_hit(&tlb2[cpu], key);
	if (walk)
		cache_fill(&tlb2[cpu], key);
	if (t->key[v])
		tlb1_unhash(t, t->key[v]);
	t->key[v] = key + 1;
	t->stamp[v] = ++clk;
	for (i = th(key + 1); t->h[i] >= 0; i = (i + 1) % TH)
		;
	t->h[i] = v;
	return walk;
}

void sim_init(unsigned int cpus, const uint64_t kib[3])
{
	unsigned int c;

	ncpu = cpus < SIM_NCPU ? cpus : SIM_NCPU;
	memset(tlb1, 0xff, sizeof(tlb1));	/* h[]: -1, empty */
	for (c = 0; c < SIM_NCPU; c++) {
		memset(tlb1[c].key, 0, sizeof(tlb1[c].key));
		memset(tlb1[c].stamp, 0, sizeof(tlb1[c].stamp));
		cache_init(&l1[c], kib[0] << 10, 12, 64);
		cache_init(&l2[c], kib[1] << 10, 16, 64);
		cache_init(&tlb2[c], 4096, 16, 1);
	}
	cache_init(&llc, kib[2] << 10, 16, 64);
}
