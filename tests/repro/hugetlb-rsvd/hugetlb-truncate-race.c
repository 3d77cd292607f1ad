// SPDX-License-Identifier: GPL-2.0
/*
 * hugetlb-truncate-race: ftruncate() of a shared hugetlb file racing a
 * fault on its reserved, never-faulted page gives the reservation back
 * twice: HugePages_Rsvd drops below what is reserved, for good, and
 * underflows (reads 18446744073709551615) once nothing else is reserved.
 *
 * One iteration (the main thread sets up, two threads race, all of it
 * undone before the count is read):
 *
 *   ftruncate(fd, 2M);                      fd = memfd_create(MFD_HUGETLB)
 *   p = mmap(NULL, 2M, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0); Rsvd +1
 *   thread A: ftruncate(fd, 0);
 *   thread B: madvise(p, 2M, MADV_POPULATE_WRITE);   (the fault; EFAULT
 *             instead of SIGBUS when it loses to the truncation)
 *   munmap(p, 2M); ftruncate(fd, 0);                 Rsvd back to start
 *
 * Every order of A and B should leave HugePages_Rsvd where it started.
 * The program stops at the first iteration after which it is lower.
 *
 * Why, as the code reads (6.1.192's and 6.12.118's mm/hugetlb.c and
 * fs/hugetlbfs/inode.c; not confirmed by tracing the kernel): B's hugetlb_no_page() checks i_size, then
 * alloc_hugetlb_folio() asks vma_needs_reservation(), which finds the
 * page's entry in the inode's reserve map (map_chg 0: "reserved"), and
 * only later takes the folio off the free list with the reservation,
 * resv_huge_pages--. A's truncation (hugetlb_vmtruncate ->
 * remove_inode_hugepages) finds no folio in the page cache (B has not
 * added it yet: freed 0) and hugetlb_unreserve_pages() region_del()s the
 * entry and gives its reservation back too, resv_huge_pages -= 1 - 0.
 * When A's region_del() falls between B's vma_needs_reservation() and
 * its dequeue, the one reservation is given back twice;
 * vma_commit_reservation() then re-adds the entry (map_commit 1), and
 * alloc_hugetlb_folio() only corrects the opposite race (map_chg >
 * map_commit). B's folio is left in the page cache past EOF with its
 * entry, and the final truncation balances those two (freed 1, chg 1),
 * so the lost reservation stays lost. hugetlb_no_page() no longer checks
 * i_size again under the page table lock, though the comment above
 * remove_inode_hugepages() still says it does.
 *
 * Seen (2026-12-04, guests under QEMU/TCG, 2 vCPUs, hugepages=16):
 *   Debian 6.1.0-57-amd64 (6.1.192) and 6.12.118+deb12-amd64: Rsvd
 *   0 -> 18446744073709551615 (-1) after the first few hundred iterations;
 *   in one boot each, 5 runs: 6.12 hit at iterations 279, 98, 505, 832,
 *   14; 6.1 at 791, 128, 108, 274, 507 (-1 each time)
 *   controls, 1500 iterations each on both: -c seq, -c fault, -c trunc
 *   left it unchanged.
 * Under TCG the window is probably wider than on hardware (coarse vCPU
 * scheduling); there it may take many more iterations.
 *
 * Build: cc -O2 -Wall -static -pthread -o hugetlb-truncate-race hugetlb-truncate-race.c
 * Run in a throwaway guest only, with at least one free 2 MiB huge page:
 *   vm/longpin-vm run --kernel debian-6.12 \
 *     --add $PWD/hugetlb-truncate-race:/opt/hugetlb-truncate-race -- \
 *     /opt/hugetlb-truncate-race 5000
 *
 * Usage: hugetlb-truncate-race [-c fault|trunc|seq] [ITERATIONS]
 *   -c fault  thread A does not truncate (control)
 *   -c trunc  thread B does not fault (control)
 *   -c seq    no threads: fault, then truncate, in the main thread
 * Exit: 1 HugePages_Rsvd dropped (the bug), 0 it did not in ITERATIONS
 * (default 5000), 77 cannot run here, 2 bad usage or unexpected failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB 4U
#endif
#define HPAGE	(2UL << 20)

enum { RACE, NO_TRUNC, NO_FAULT, SEQ };
static int mode, fd;
static char *volatile map;
static volatile long go;	/* iteration to run; -1: stop */
static long done;		/* threads done with it */

/* HugePages_Rsvd; an underflowed count reads as a huge unsigned */
static unsigned long rsvd(void)
{
	char line[256];
	unsigned long v = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "HugePages_Rsvd:", 15)) {
			v = strtoul(line + 15, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

static void *thread(void *arg)
{
	long seen = 0;
	int truncator = arg != NULL;

	for (;;) {
		while (__atomic_load_n(&go, __ATOMIC_ACQUIRE) == seen)
			;
		seen = go;
		if (seen < 0)
			return NULL;
		if (truncator && mode != NO_TRUNC)
			(void)ftruncate(fd, 0);
		if (!truncator && mode != NO_FAULT)
			(void)madvise(map, HPAGE, MADV_POPULATE_WRITE);
		__atomic_add_fetch(&done, 1, __ATOMIC_RELEASE);
	}
}

int main(int argc, char **argv)
{
	long n = 5000, i;
	unsigned long r0, r;
	pthread_t a, b;
	int opt;

	while ((opt = getopt(argc, argv, "c:")) != -1) {
		if (opt != 'c')
			goto usage;
		if (!strcmp(optarg, "fault"))
			mode = NO_TRUNC;
		else if (!strcmp(optarg, "trunc"))
			mode = NO_FAULT;
		else if (!strcmp(optarg, "seq"))
			mode = SEQ;
		else
			goto usage;
	}
	if (optind < argc)
		n = atol(argv[optind++]);
	if (optind < argc || n <= 0)
		goto usage;

	fd = memfd_create("hugetlb-truncate-race", MFD_HUGETLB);
	if (fd < 0) {
		printf("SKIP: memfd_create(MFD_HUGETLB): %s\n", strerror(errno));
		return 77;
	}
	r0 = rsvd();
	printf("HugePages_Rsvd at start: %lu; mode %s, up to %ld iterations\n", r0,
	       mode == RACE ? "race" : mode == NO_TRUNC ? "fault only" :
	       mode == NO_FAULT ? "truncate only" : "sequential", n);
	fflush(stdout);
	if (mode != SEQ) {
		pthread_create(&a, NULL, thread, (void *)1);
		pthread_create(&b, NULL, thread, NULL);
	}
	for (i = 1; i <= n; i++) {
		if (ftruncate(fd, HPAGE)) {
			printf("ftruncate: %s\n", strerror(errno));
			return 2;
		}
		map = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			if (i == 1) {
				printf("SKIP: mmap of a 2 MiB huge page: %s (no free huge page?)\n",
				       strerror(errno));
				return 77;
			}
			printf("mmap at iteration %ld: %s\n", i, strerror(errno));
			return 2;
		}
		if (mode == SEQ) {
			(void)madvise(map, HPAGE, MADV_POPULATE_WRITE);
			(void)ftruncate(fd, 0);
		} else {
			__atomic_store_n(&done, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&go, i, __ATOMIC_RELEASE);
			while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < 2)
				;
		}
		munmap(map, HPAGE);
		(void)ftruncate(fd, 0);
		r = rsvd();
		if (r != r0) {
			printf("iteration %ld: HugePages_Rsvd %lu -> %lu (%+ld), nothing mapped, file empty\n",
			       i, r0, r, (long)(r - r0));
			return 1;
		}
	}
	printf("%ld iterations: HugePages_Rsvd stayed %lu\n", n, r0);
	return 0;
usage:
	fprintf(stderr, "usage: %s [-c fault|trunc|seq] [ITERATIONS]\n", argv[0]);
	return 2;
}
