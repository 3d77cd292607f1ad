// SPDX-License-Identifier: GPL-2.0
/*
 * hugetlb-mremap-rsvd: mremap() of a part of a private hugetlb mapping
 * leaks HugePages_Rsvd, for good.
 *
 * What it does, in a child process that then exits (so nothing of it is
 * mapped when the count is read again):
 *
 *   case "untouched" (no page ever faulted):
 *     p = mmap(NULL, 8M, PROT_READ|PROT_WRITE,
 *              MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB, -1, 0);  Rsvd +4
 *     mremap(p + 2M, 2M, 2M, MREMAP_MAYMOVE|MREMAP_FIXED, hole);
 *     munmap(p, 8M); munmap(hole, 2M);                         Rsvd +3 stays
 *
 *   case "dontneed" (every page faulted, one given back):
 *     p = mmap(... as above ...);                              Rsvd +4
 *     memset(p, 1, 8M);                                        Rsvd +0
 *     madvise(p, 2M, MADV_DONTNEED);                           Rsvd +1
 *     mremap(p + 2M, 2M, 2M, MREMAP_MAYMOVE|MREMAP_FIXED, hole);
 *     munmap(p, 8M); munmap(hole, 2M);                         Rsvd +1 stays
 *
 * ("hole" is a 2 MiB-aligned PROT_NONE anonymous placeholder; any free
 * huge-page-aligned address does.) HugePages_Rsvd in /proc/meminfo is
 * read before the fork and after the child's exit; the difference is
 * what the kernel kept reserved for mappings that no longer exist. With
 * -d the program then writes 0 to /proc/sys/vm/nr_hugepages: the leaked
 * reservations stay as surplus pages that can never be freed (Total =
 * Free = Rsvd = Surp = the leak), as on the host where this was found.
 *
 * Why (read in 6.1.192's and 6.12.118's mm/mremap.c move_vma()): the
 * moved range's new VMA takes a reference on the private resv_map, then
 * clear_vma_resv_huge_pages() is called on the *whole* source VMA, which
 * clears its vm_private_data (the resv_map pointer and HPAGE_RESV_OWNER);
 * only then does do_vmi_munmap() split the source around the moved range.
 * The pieces left in place are no longer owners, so hugetlb_vm_op_close()
 * returns nothing for them when they are unmapped: every reservation
 * still unconsumed in them (a page never faulted, or one whose
 * reservation MADV_DONTNEED restored) stays in resv_huge_pages. The
 * moved piece itself is accounted right. Moving a whole VMA does not
 * leak. The "dontneed" case needs a kernel that restores the reservation
 * on MADV_DONTNEED (df7a6d1f6405 "mm/hugetlb: restore the reservation if
 * needed", in 6.12, not in 6.1.192): that is the form longpin's torture
 * (madvise + mremap threads on a populated buffer) hits.
 *
 * Seen (2026-12-04, guests under QEMU/TCG, hugepages=64 or 16 at boot):
 *   Debian 6.12.118+deb12-amd64:  untouched +3, dontneed +1 per round
 *   Debian 6.1.0-57-amd64 (6.1.192): untouched +3, dontneed +0
 *   longpin's stock kernel (6.1.192, built from linux-source-6.1): the same
 *   with -d on both: HugePages_Total = Free = Rsvd = Surp = the sum.
 *
 * Build: cc -O2 -Wall -static -o hugetlb-mremap-rsvd hugetlb-mremap-rsvd.c
 * Run only in a throwaway guest (the leak lasts until reboot), as root
 * for -d, with at least 4 free 2 MiB huge pages:
 *   vm/longpin-vm run --kernel debian-6.12 \
 *     --add $PWD/hugetlb-mremap-rsvd:/opt/hugetlb-mremap-rsvd -- \
 *     /opt/hugetlb-mremap-rsvd -d
 *
 * Usage: hugetlb-mremap-rsvd [-d] [-n ROUNDS] [untouched|dontneed|all]
 * Exit: 1 a leak was seen (the bug), 0 none, 77 cannot run here (no free
 * huge pages, no MAP_HUGETLB), 2 bad usage or an unexpected failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define HPAGE	(2UL << 20)
#define NPAGES	4

static long meminfo(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static void show(const char *when)
{
	printf("%s: HugePages_Total %ld Free %ld Rsvd %ld Surp %ld\n", when,
	       meminfo("HugePages_Total"), meminfo("HugePages_Free"),
	       meminfo("HugePages_Rsvd"), meminfo("HugePages_Surp"));
}

/* A free 2 MiB-aligned 2 MiB range, held by a PROT_NONE placeholder. */
static char *hole(void)
{
	char *p = mmap(NULL, 2 * HPAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((unsigned long)p + HPAGE - 1) & ~(HPAGE - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + HPAGE, p + 2 * HPAGE - (a + HPAGE));
	return a;
}

/* The syscalls of one case; 0, or 2 on an unexpected failure. */
static int one_case(int dontneed)
{
	char *p, *h = hole();

	p = mmap(NULL, NPAGES * HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED || !h) {
		fprintf(stderr, "mmap: %s\n", strerror(errno));
		return 2;
	}
	if (dontneed) {
		memset(p, 1, NPAGES * HPAGE);
		if (madvise(p, HPAGE, MADV_DONTNEED)) {
			fprintf(stderr, "madvise: %s\n", strerror(errno));
			return 2;
		}
	}
	if (mremap(p + HPAGE, HPAGE, HPAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		   h) != h) {
		fprintf(stderr, "mremap: %s\n", strerror(errno));
		return 2;
	}
	munmap(p, NPAGES * HPAGE);
	munmap(h, HPAGE);
	return 0;
}

/* Run a case in a child; what HugePages_Rsvd grew by once it exited. */
static long run_case(const char *name, int dontneed, long *leak)
{
	long r0 = meminfo("HugePages_Rsvd"), r1;
	int status;
	pid_t pid;

	*leak = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid)
		_exit(one_case(dontneed));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 2;
	r1 = meminfo("HugePages_Rsvd");
	*leak = r1 - r0;
	printf("case %-9s HugePages_Rsvd %ld -> %ld after the process exited: %s%+ld\n",
	       name, r0, r1, *leak ? "LEAKED " : "balanced ", *leak);
	return 0;
}

int main(int argc, char **argv)
{
	int drain = 0, rounds = 1, opt, i, bad = 0;
	const char *which = "all";
	long leak, total = 0;
	void *probe;

	while ((opt = getopt(argc, argv, "dn:")) != -1) {
		if (opt == 'd')
			drain = 1;
		else if (opt == 'n' && atoi(optarg) > 0)
			rounds = atoi(optarg);
		else
			goto usage;
	}
	if (optind < argc)
		which = argv[optind++];
	if (optind < argc || (strcmp(which, "all") && strcmp(which, "untouched") &&
			      strcmp(which, "dontneed")))
		goto usage;

	if (meminfo("HugePages_Free") - meminfo("HugePages_Rsvd") < NPAGES) {
		printf("SKIP: fewer than %d unreserved free 2 MiB huge pages (echo 8 > /proc/sys/vm/nr_hugepages)\n",
		       NPAGES);
		return 77;
	}
	probe = mmap(NULL, NPAGES * HPAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (probe == MAP_FAILED) {
		printf("SKIP: mmap(MAP_HUGETLB) of %d huge pages: %s\n", NPAGES,
		       strerror(errno));
		return 77;
	}
	munmap(probe, NPAGES * HPAGE);

	show("before");
	for (i = 0; i < rounds; i++) {
		if (strcmp(which, "dontneed")) {
			bad |= run_case("untouched", 0, &leak);
			total += leak;
		}
		if (strcmp(which, "untouched")) {
			bad |= run_case("dontneed", 1, &leak);
			total += leak;
		}
	}
	show("after");
	if (drain) {
		FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");

		if (!f || fprintf(f, "0\n") < 0 || fclose(f))
			fprintf(stderr, "cannot write nr_hugepages: %s\n", strerror(errno));
		show("after nr_hugepages=0");
	}
	if (bad) {
		fprintf(stderr, "a case failed before it could be judged\n");
		return 2;
	}
	printf("%s: HugePages_Rsvd %+ld in all, nothing mapped\n",
	       total ? "LEAK" : "OK", total);
	return total ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s [-d] [-n ROUNDS] [untouched|dontneed|all]\n", argv[0]);
	return 2;
}
