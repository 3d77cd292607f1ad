/* SPDX-License-Identifier: GPL-2.0 */
/* cachesim.h: the cache and TLB model of scripts/costprof.c. */
#ifndef LONGPIN_CACHESIM_H
#define LONGPIN_CACHESIM_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_NCPU	8		/* vCPUs apart; more fold onto these */
#define SIM_TLB1	96		/* L1 DTLB entries, fully associative */
#define SIM_KERNEL	0xffff800000000000ull	/* where kernel addresses start */

/* @cpus vCPUs; L1d, L2 and LLC of kib[0], kib[1], kib[2] KiB */
void sim_init(unsigned int cpus, const uint64_t kib[3]);
/* the level the 64-byte line @line was found at: 1, 2, 3 (LLC) or 4 (memory) */
int cache_access(unsigned int cpu, uint64_t line, bool store);
/* whether the access at virtual address @va walked the page tables */
bool tlb_access(unsigned int cpu, uint64_t va);

#endif
