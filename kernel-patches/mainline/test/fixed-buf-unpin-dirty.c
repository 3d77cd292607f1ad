/* SPDX-License-Identifier: MIT */
/*
 * Description: what READ_FIXED writes into a registered buffer must
 * survive the buffer's unregistration and a page-out. The kernel unpins
 * the buffer's pages then; unless it marks them dirty, reclaim takes a
 * page whose PTE and flags are clean for unchanged and drops it, and
 * what READ_FIXED wrote is gone. Two cases, 64 KiB each:
 *
 *   shmem     a memfd buffer only read before registration (mapped
 *             writable with a clean PTE), READ_FIXED from a file,
 *             unregistered, MADV_PAGEOUT, read back;
 *   madvfree  a private anonymous buffer written, then MADV_FREEd (clean
 *             and lazily freeable), registered, READ_FIXED, unregistered,
 *             MADV_PAGEOUT (again while pages stay: a lazily freed page
 *             written again is made swap-backed and kept for one
 *             pass), read back.
 *
 * A case prints one line: PASS (its pages left memory and came back
 * whole), FAIL (bytes lost, or READ_FIXED did not fill the buffer) or
 * SKIP (no page left memory, so nothing was tested; the reason).
 * Exit: T_EXIT_FAIL if a case failed, T_EXIT_SKIP if every case skipped,
 * else T_EXIT_PASS; 2 for a bad argument.
 *
 * Usage: fixed-buf-unpin-dirty [shmem|madvfree]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <liburing.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

enum t_test_result {
	T_EXIT_PASS	= 0,
	T_EXIT_FAIL	= 1,
	T_EXIT_SKIP	= 77,
};

#define BUF_SIZE	(64 * 1024)

struct tcase {
	const char	*name;
	/* maps the buffer and leaves it as the case wants it pinned */
	int		(*prepare)(const struct tcase *tc, char **buf, int *fd);
};

static size_t page_size;

/* Prints "CASE: WORD: why" and returns the T_EXIT_* of WORD. */
static int t_report(const struct tcase *tc, int ret, const char *fmt, ...)
{
	const char *word = ret == T_EXIT_PASS ? "PASS" :
			   ret == T_EXIT_SKIP ? "SKIP" : "FAIL";
	va_list ap;

	printf("%s: %s: ", tc->name, word);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return ret;
}

/* A byte pattern without zeros, different in every page. */
static void t_fill_pattern(char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)(0x80 | ((i * 29 + (i / 4096) * 11) & 0x7f));
}

/* How many of @len bytes at @buf differ from @want. */
static size_t t_bytes_differ(const char *buf, const char *want, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += buf[i] != want[i];
	return n;
}

/* mincore() of [@addr, @addr + @len) into @vec; -errno on failure. */
static int t_resident(char *addr, size_t len, unsigned char *vec)
{
	return mincore(addr, len, vec) ? -errno : 0;
}

/* Whether /proc/swaps lists a swap area (-1: cannot tell). */
static int t_swap_on(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n > 1;
}

/* A memfd holding @len bytes of @pat: the file READ_FIXED reads. */
static int t_source_file(const char *pat, size_t len)
{
	int fd = memfd_create("fixed-buf-unpin-dirty-src", 0);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, pat, len);
	if (n != (ssize_t)len) {
		int err = n < 0 ? -errno : -EIO;

		close(fd);
		return err;
	}
	return fd;
}

/* One READ_FIXED of @len bytes at offset 0 of @fd into @buf: its res. */
static int t_read_fixed(struct io_uring *ring, int fd, char *buf, size_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_read_fixed(sqe, fd, buf, len, 0, 0);
	ret = io_uring_submit(ring);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

static int prepare_shmem(const struct tcase *tc, char **buf, int *fd)
{
	volatile char sink;
	size_t i;

	*fd = memfd_create("fixed-buf-unpin-dirty", 0);
	if (*fd < 0)
		return t_report(tc, errno == ENOSYS ? T_EXIT_SKIP : T_EXIT_FAIL,
				"memfd_create: %s", strerror(errno));
	if (ftruncate(*fd, BUF_SIZE))
		return t_report(tc, T_EXIT_FAIL, "ftruncate: %s",
				strerror(errno));
	*buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd,
		    0);
	if (*buf == MAP_FAILED) {
		*buf = NULL;
		return t_report(tc, T_EXIT_FAIL, "mmap of the memfd: %s",
				strerror(errno));
	}
	/* read faults: each page mapped writable, its PTE clean */
	for (i = 0; i < BUF_SIZE; i += page_size)
		sink = (*buf)[i];
	(void)sink;
	return T_EXIT_PASS;
}

static int prepare_madvfree(const struct tcase *tc, char **buf, int *fd)
{
	*fd = -1;
	*buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*buf == MAP_FAILED) {
		*buf = NULL;
		return t_report(tc, T_EXIT_FAIL, "mmap: %s", strerror(errno));
	}
	memset(*buf, 0x5a, BUF_SIZE);
	/* the PTEs stay writable but clean: the pages are lazily freeable */
	if (madvise(*buf, BUF_SIZE, MADV_FREE))
		return t_report(tc, errno == EINVAL ? T_EXIT_SKIP : T_EXIT_FAIL,
				"MADV_FREE: %s", strerror(errno));
	return T_EXIT_PASS;
}

/*
 * Registers the prepared buffer, fills it with READ_FIXED, unregisters
 * it, pages it out and reads it back.
 */
static int test_case(const struct tcase *tc)
{
	size_t npages = BUF_SIZE / page_size, i, lost;
	unsigned char before[BUF_SIZE / 512], after[BUF_SIZE / 512];
	struct io_uring ring;
	bool ring_up = false;
	char *pat, *buf = NULL;
	int src, fd = -1, ret, out = 0, tries, kept;
	struct iovec iov;

	pat = malloc(BUF_SIZE);
	if (!pat)
		return t_report(tc, T_EXIT_FAIL, "malloc: %s", strerror(ENOMEM));
	t_fill_pattern(pat, BUF_SIZE);
	src = t_source_file(pat, BUF_SIZE);
	if (src < 0) {
		ret = t_report(tc, src == -ENOSYS ? T_EXIT_SKIP : T_EXIT_FAIL,
			       "the file to read from (memfd): %s",
			       strerror(-src));
		goto out_free;
	}

	ret = tc->prepare(tc, &buf, &fd);
	if (ret != T_EXIT_PASS)
		goto out;

	ret = io_uring_queue_init(4, &ring, 0);
	if (ret) {
		ret = t_report(tc, ret == -ENOSYS || ret == -EPERM ?
			       T_EXIT_SKIP : T_EXIT_FAIL,
			       "io_uring_queue_init: %s", strerror(-ret));
		goto out;
	}
	ring_up = true;

	iov.iov_base = buf;
	iov.iov_len = BUF_SIZE;
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret == -ENOMEM || ret == -EOPNOTSUPP) {
		ret = t_report(tc, T_EXIT_SKIP,
			       "registering the buffer: %s%s", strerror(-ret),
			       ret == -ENOMEM ? " (RLIMIT_MEMLOCK?)" :
			       " (this kernel does not register such memory)");
		goto out;
	} else if (ret) {
		ret = t_report(tc, T_EXIT_FAIL, "registering the buffer: %s",
			       strerror(-ret));
		goto out;
	}

	ret = t_read_fixed(&ring, src, buf, BUF_SIZE);
	if (ret != BUF_SIZE) {
		ret = t_report(tc, T_EXIT_FAIL,
			       "READ_FIXED answered %d (%s), want %d", ret,
			       ret < 0 ? strerror(-ret) : "short read",
			       BUF_SIZE);
		goto out;
	}
	lost = t_bytes_differ(buf, pat, BUF_SIZE);
	if (lost) {
		ret = t_report(tc, T_EXIT_FAIL,
			       "READ_FIXED did not fill the buffer: %zu of %d bytes differ before the unregistration",
			       lost, BUF_SIZE);
		goto out;
	}

	ret = io_uring_unregister_buffers(&ring);
	if (ret) {
		ret = t_report(tc, T_EXIT_FAIL, "unregistering: %s",
			       strerror(-ret));
		goto out;
	}
	io_uring_queue_exit(&ring);
	ring_up = false;

	ret = t_resident(buf, BUF_SIZE, before);
	if (ret) {
		ret = t_report(tc, T_EXIT_FAIL, "mincore: %s", strerror(-ret));
		goto out;
	}
	if (madvise(buf, BUF_SIZE, MADV_PAGEOUT)) {
		ret = t_report(tc, errno == EINVAL ? T_EXIT_SKIP : T_EXIT_FAIL,
			       "MADV_PAGEOUT: %s: nothing was paged out",
			       strerror(errno));
		goto out;
	}
	/*
	 * A lazily freed page written again (dirtied at the unpin) is made
	 * swap-backed by reclaim and kept for that pass: page out twice
	 * more at most while pages that were resident still are.
	 */
	for (tries = 0; tries < 3; tries++) {
		ret = t_resident(buf, BUF_SIZE, after);
		if (ret) {
			ret = t_report(tc, T_EXIT_FAIL, "mincore: %s",
				       strerror(-ret));
			goto out;
		}
		for (i = 0, kept = 0; i < npages; i++)
			kept += (before[i] & 1) && (after[i] & 1);
		if (!kept || tries == 2)
			break;
		madvise(buf, BUF_SIZE, MADV_PAGEOUT);
	}
	for (i = 0; i < npages; i++)
		out += (before[i] & 1) && !(after[i] & 1);

	/* reading the buffer back faults the lost pages in again */
	lost = t_bytes_differ(buf, pat, BUF_SIZE);
	if (lost && !out)
		ret = t_report(tc, T_EXIT_FAIL,
			       "%zu of %d bytes changed, though no page left memory",
			       lost, BUF_SIZE);
	else if (lost)
		ret = t_report(tc, T_EXIT_FAIL,
			       "lost %zu of %d bytes: %d of %zu pages left memory after the unregistration and came back without what READ_FIXED wrote",
			       lost, BUF_SIZE, out, npages);
	else if (!out)
		ret = t_report(tc, T_EXIT_SKIP,
			       "no page left memory at MADV_PAGEOUT (%s): nothing was tested",
			       t_swap_on() == 0 ?
			       "no swap, so a dirty page has nowhere to go" :
			       "reclaim kept them");
	else
		ret = t_report(tc, T_EXIT_PASS,
			       "%d of %zu pages left memory after the unregistration and came back whole",
			       out, npages);
out:
	if (ring_up)
		io_uring_queue_exit(&ring);
	if (buf)
		munmap(buf, BUF_SIZE);
	if (fd >= 0)
		close(fd);
	if (src >= 0)
		close(src);
out_free:
	free(pat);
	return ret;
}

static const struct tcase cases[] = {
	{ "shmem",	prepare_shmem },
	{ "madvfree",	prepare_madvfree },
};

int main(int argc, char *argv[])
{
	int fails = 0, skips = 0, ran = 0, ret;
	size_t i;

	if (argc > 2) {
		fprintf(stderr, "fixed-buf-unpin-dirty: too many arguments: give one case (shmem, madvfree) or none\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	if (page_size < 512 || BUF_SIZE % page_size) {
		fprintf(stderr, "fixed-buf-unpin-dirty: page size %zu does not divide %d\n",
			page_size, BUF_SIZE);
		return T_EXIT_SKIP;
	}

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (argc == 2 && strcmp(argv[1], cases[i].name))
			continue;
		ran++;
		ret = test_case(&cases[i]);
		fails += ret == T_EXIT_FAIL;
		skips += ret == T_EXIT_SKIP;
	}
	if (!ran) {
		fprintf(stderr, "fixed-buf-unpin-dirty: no case '%s': give shmem, madvfree or none\n",
			argv[1]);
		return 2;
	}
	if (fails)
		return T_EXIT_FAIL;
	if (skips == ran)
		return T_EXIT_SKIP;
	return T_EXIT_PASS;
}
