// SPDX-License-Identifier: GPL-2.0
/*
 * repro: the three defects the kernel-patches series fix, each in one
 * process, with io_uring fixed buffers (liburing). Run as root inside a
 * guest (vm/longpin-vm run --kernel K --add repro:/repro -- /repro CASE):
 *
 *   gap       8 anonymous pages at A, pages 4-5 unmapped, 2 pages mapped
 *             MAP_FIXED|MAP_GROWSDOWN at A + 6 pages; register [A, A + 8
 *             pages) untouched. Prints the answer, how many of pages 0-3
 *             the registration faulted in (mincore()) and how many pins it
 *             took (nr_foll_pin_acquired). Fixed: -EFAULT, 0 faulted, 0
 *             pins (6.1 carry: "mm/gup: let a long-term pinner check a
 *             range's VMAs before pinning"); else the pages before the gap were
 *             faulted and pinned before -EFAULT.
 *   shmem     a 64 KiB memfd buffer, read-faulted, registered, READ_FIXED
 *             from a file, unregistered, MADV_PAGEOUT, read back.
 *   madvfree  a 64 KiB private anonymous buffer, written, MADV_FREEd,
 *             registered, READ_FIXED, unregistered, MADV_PAGEOUT, read
 *             back. Fixed: no byte lost (dirtying on unpin: 6.1-stable's
 *             2/2, 6.12's 1/2).
 *
 * Prints one line per case; exit 0: the kernel behaves as fixed, 1: the
 * defect shows, 2: setup failed. Build: cc -O2 -static -o repro repro.c
 * -luring (kernel-patches/repro/build.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define BUF (64 * 1024)

static void die(const char *what, int err)
{
	fprintf(stderr, "repro: %s: %s\n", what, strerror(err));
	exit(2);
}

/* a /proc/vmstat counter, after folding the per-CPU deltas in; -1 if absent */
static long vmstat(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	long v = -1;
	FILE *f = fopen("/proc/sys/vm/stat_refresh", "w");

	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atol(line + n + 1);
	fclose(f);
	return v;
}

static int gap(void)
{
	long ps = sysconf(_SC_PAGESIZE), pins;
	unsigned char vec[4];
	struct io_uring ring;
	struct iovec iov;
	int ret, i, resident = 0;
	char *a, *g;

	a = mmap(NULL, 8 * ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		die("mmap 8 pages", errno);
	if (munmap(a + 4 * ps, 2 * ps))
		die("munmap pages 4-5", errno);
	g = mmap(a + 6 * ps, 2 * ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, -1, 0);
	if (g == MAP_FAILED)
		die("mmap 2 pages MAP_GROWSDOWN at A + 6 pages", errno);
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		die("io_uring_queue_init", -ret);
	iov.iov_base = a;
	iov.iov_len = 8 * ps;
	pins = vmstat("nr_foll_pin_acquired");
	ret = io_uring_register_buffers(&ring, &iov, 1);
	pins = vmstat("nr_foll_pin_acquired") - pins;
	if (mincore(a, 4 * ps, vec))
		die("mincore", errno);
	for (i = 0; i < 4; i++)
		resident += vec[i] & 1;
	printf("gap: register [A, A + 8 pages) over a 2-page gap below a MAP_GROWSDOWN VMA: %s; pages 0-3 faulted in: %d of 4; pins taken: %ld\n",
	       ret ? strerror(-ret) : "registered", resident, pins);
	if (!ret)
		io_uring_unregister_buffers(&ring);
	io_uring_queue_exit(&ring);
	return ret == -EFAULT && resident == 0 ? 0 : 1;
}

static int lost_after_pageout(int shmem)
{
	const char *name = shmem ? "shmem" : "madvfree";
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct iovec iov;
	int src, fd = -1, ret, i, lost = 0;
	volatile char sink;
	char *pat, *buf;

	/* the file READ_FIXED reads: a memfd with a pattern without zeros */
	pat = malloc(BUF);
	if (!pat)
		die("malloc", ENOMEM);
	for (i = 0; i < BUF; i++)
		pat[i] = (char)(0x80 | (i * 7));
	src = memfd_create("repro-src", 0);
	if (src < 0 || write(src, pat, BUF) != BUF)
		die("memfd with the pattern", errno);

	if (shmem) {
		fd = memfd_create("repro-buf", 0);
		if (fd < 0 || ftruncate(fd, BUF))
			die("memfd buffer", errno);
		buf = mmap(NULL, BUF, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (buf == MAP_FAILED)
			die("mmap memfd buffer", errno);
		for (i = 0; i < BUF; i += 4096)
			sink = buf[i];	/* read-fault: writable, clean */
	} else {
		buf = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			die("mmap anonymous buffer", errno);
		memset(buf, 0x5a, BUF);
		if (madvise(buf, BUF, MADV_FREE))
			die("MADV_FREE", errno);
	}
	(void)sink;

	ret = io_uring_queue_init(4, &ring, 0);
	if (ret)
		die("io_uring_queue_init", -ret);
	iov.iov_base = buf;
	iov.iov_len = BUF;
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		die("io_uring_register_buffers", -ret);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(sqe, src, buf, BUF, 0, 0);
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret != 1)
		die("io_uring_submit_and_wait", ret < 0 ? -ret : EIO);
	ret = io_uring_wait_cqe(&ring, &cqe);
	if (ret)
		die("io_uring_wait_cqe", -ret);
	if (cqe->res != BUF)
		die("READ_FIXED", cqe->res < 0 ? -cqe->res : EIO);
	io_uring_cqe_seen(&ring, cqe);
	if (memcmp(buf, pat, BUF))
		die("READ_FIXED read something else", EIO);
	ret = io_uring_unregister_buffers(&ring);
	if (ret)
		die("io_uring_unregister_buffers", -ret);
	io_uring_queue_exit(&ring);

	if (madvise(buf, BUF, MADV_PAGEOUT))
		die("MADV_PAGEOUT", errno);
	for (i = 0; i < BUF; i++)
		lost += buf[i] != pat[i];
	printf("%s: after READ_FIXED, unregistration and MADV_PAGEOUT: %d of %d bytes lost\n",
	       name, lost, BUF);
	return lost ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "gap"))
		return gap();
	if (argc == 2 && !strcmp(argv[1], "shmem"))
		return lost_after_pageout(1);
	if (argc == 2 && !strcmp(argv[1], "madvfree"))
		return lost_after_pageout(0);
	fprintf(stderr, "usage: repro gap|shmem|madvfree\n");
	return 2;
}
