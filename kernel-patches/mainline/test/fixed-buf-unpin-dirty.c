/* SPDX-License-Identifier: MIT */
/*
 * Description: what READ_FIXED writes into a registered buffer must
 * survive the buffer's unregistration and a page-out. The kernel unpins
 * the buffer's pages then; unless it marks them dirty, reclaim takes a
 * page whose PTE and flags are clean for unchanged and drops it, and
 * what READ_FIXED wrote is gone. Four cases, 64 KiB each:
 *
 *   shmem     a memfd buffer only read before registration (mapped
 *             writable with a clean PTE), READ_FIXED from a file,
 *             unregistered, MADV_PAGEOUT, read back;
 *   madvfree  a private anonymous buffer written, then MADV_FREEd (clean
 *             and lazily freeable), registered, READ_FIXED, unregistered,
 *             MADV_PAGEOUT (again while pages stay: a lazily freed page
 *             written again is made swap-backed and kept for one
 *             pass), read back;
 *   shmem-odirect, madvfree-odirect
 *             the same buffers, READ_FIXED from a file opened O_DIRECT:
 *             the data lands by DMA (or a copy, where the filesystem
 *             serves O_DIRECT from memory) rather than through the page
 *             cache.
 *
 * The buffered cases read from a memfd. The O_DIRECT cases read from
 * argv[1] if given (a file or block device, as runtests.sh passes its
 * TEST_FILES; its first 64 KiB are overwritten), else from a file the
 * test creates in the working directory; they skip where that file
 * cannot be opened O_DIRECT.
 *
 * A case prints one line: PASS (its pages left memory and came back
 * whole), FAIL (bytes lost, or READ_FIXED did not fill the buffer) or
 * SKIP (nothing was tested; the reason). Exit: T_EXIT_FAIL if a case
 * failed, T_EXIT_SKIP if every case skipped, else T_EXIT_PASS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "liburing.h"
#include "helpers.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

#define BUF_SIZE	(64 * 1024)

/* the file a case's READ_FIXED reads, or why there is none */
struct source {
	int		fd;
	int		ret;		/* T_EXIT_SKIP or T_EXIT_FAIL if fd < 0 */
	char		why[256];
};

struct tcase {
	const char	*name;
	/* maps the buffer and leaves it as the case wants it pinned */
	int		(*prepare)(const struct tcase *tc, char **buf, int *fd);
	bool		direct;
};

static size_t page_size;

/* Prints "CASE: WORD: why" and returns the T_EXIT_* of WORD. */
static int report(const struct tcase *tc, int ret, const char *fmt, ...)
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

/* Records in @s that there is no source and why; returns @ret. */
static int no_source(struct source *s, int ret, const char *fmt, ...)
{
	va_list ap;

	s->fd = -1;
	s->ret = ret;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	return ret;
}

/* A byte pattern without zeros, different in every page. */
static void fill_pattern(char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)(0x80 | ((i * 29 + (i / 4096) * 11) & 0x7f));
}

/* How many of @len bytes at @buf differ from @want. */
static size_t bytes_differ(const char *buf, const char *want, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		n += buf[i] != want[i];
	return n;
}

/* Whether /proc/swaps lists a swap area (-1: cannot tell). */
static int swap_on(void)
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

/* Writes @pat at offset 0 of @fd and syncs it; 0 or -errno. */
static int write_pattern(int fd, const char *pat)
{
	ssize_t n = pwrite(fd, pat, BUF_SIZE, 0);

	if (n != BUF_SIZE)
		return n < 0 ? -errno : -EIO;
	return fsync(fd) ? -errno : 0;
}

/* The buffered cases' source: a memfd holding @pat. */
static void open_memfd_source(struct source *s, const char *pat)
{
	int ret;

	s->fd = memfd_create("fixed-buf-unpin-dirty-src", 0);
	if (s->fd < 0) {
		no_source(s, errno == ENOSYS ? T_EXIT_SKIP : T_EXIT_FAIL,
			  "the file to read from (memfd): %s",
			  strerror(errno));
		return;
	}
	ret = write_pattern(s->fd, pat);
	if (ret) {
		close(s->fd);
		no_source(s, T_EXIT_FAIL, "writing the memfd: %s",
			  strerror(-ret));
	}
}

/* The filesystem of @fd, for the O_DIRECT cases' first line. */
static const char *fs_name(int fd, char *tmp, size_t len)
{
	struct statfs sfs;
	struct stat st;

	if (!fstat(fd, &st) && S_ISBLK(st.st_mode))
		return "a block device";
	if (fstatfs(fd, &sfs))
		return "an unknown filesystem";
	switch ((unsigned long)sfs.f_type) {
	case 0xef53:
		return "ext2/3/4";
	case 0x58465342:
		return "xfs";
	case 0x9123683e:
		return "btrfs";
	case 0x01021994:
		return "tmpfs (O_DIRECT served by a copy)";
	}
	snprintf(tmp, len, "filesystem magic 0x%lx",
		 (unsigned long)sfs.f_type);
	return tmp;
}

/* The O_DIRECT cases' source: @fname holding @pat, opened O_DIRECT. */
static void open_direct_source(struct source *s, const char *fname,
			       const char *pat)
{
	char tmp[64];
	int fd, ret;

	fd = open(fname, O_WRONLY);
	if (fd < 0) {
		no_source(s, T_EXIT_FAIL, "opening %s: %s", fname,
			  strerror(errno));
		return;
	}
	ret = write_pattern(fd, pat);
	close(fd);
	if (ret) {
		no_source(s, T_EXIT_FAIL, "writing %s: %s", fname,
			  strerror(-ret));
		return;
	}
	s->fd = open(fname, O_RDONLY | O_DIRECT);
	if (s->fd < 0 && errno == EINVAL) {
		no_source(s, T_EXIT_SKIP,
			  "open(%s, O_DIRECT): %s: its filesystem does not do O_DIRECT; give a file on one that does (ext4, xfs, ...) as argv[1]",
			  fname, strerror(errno));
		return;
	} else if (s->fd < 0) {
		no_source(s, T_EXIT_FAIL, "open(%s, O_DIRECT): %s", fname,
			  strerror(errno));
		return;
	}
	printf("O_DIRECT cases read %s, on %s\n", fname,
	       fs_name(s->fd, tmp, sizeof(tmp)));
	fflush(stdout);
}

/* One READ_FIXED of @len bytes at offset 0 of @fd into @buf: its res. */
static int read_fixed(struct io_uring *ring, int fd, char *buf, size_t len)
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
		return report(tc, errno == ENOSYS ? T_EXIT_SKIP : T_EXIT_FAIL,
			      "memfd_create: %s", strerror(errno));
	if (ftruncate(*fd, BUF_SIZE))
		return report(tc, T_EXIT_FAIL, "ftruncate: %s",
			      strerror(errno));
	*buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, *fd,
		    0);
	if (*buf == MAP_FAILED) {
		*buf = NULL;
		return report(tc, T_EXIT_FAIL, "mmap of the memfd: %s",
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
		return report(tc, T_EXIT_FAIL, "mmap: %s", strerror(errno));
	}
	memset(*buf, 0x5a, BUF_SIZE);
	/* the PTEs stay writable but clean: the pages are lazily freeable */
	if (madvise(*buf, BUF_SIZE, MADV_FREE))
		return report(tc, errno == EINVAL ? T_EXIT_SKIP : T_EXIT_FAIL,
			      "MADV_FREE: %s", strerror(errno));
	return T_EXIT_PASS;
}

/*
 * Registers the prepared buffer, fills it from @src with READ_FIXED,
 * unregisters it, pages it out and reads it back.
 */
static int test_case(const struct tcase *tc, const struct source *src,
		     const char *pat)
{
	size_t npages = BUF_SIZE / page_size, i, lost;
	unsigned char before[BUF_SIZE / 512], after[BUF_SIZE / 512];
	struct io_uring ring;
	bool ring_up = false;
	char *buf = NULL;
	int fd = -1, ret, out = 0, tries, kept;
	struct iovec iov;

	if (src->fd < 0)
		return report(tc, src->ret, "%s", src->why);

	ret = tc->prepare(tc, &buf, &fd);
	if (ret != T_EXIT_PASS)
		goto out;

	ret = t_create_ring(4, &ring, 0);
	if (ret == T_SETUP_SKIP || ret == -ENOSYS || ret == -EPERM) {
		ret = report(tc, T_EXIT_SKIP, "no io_uring ring (%s)",
			     ret == T_SETUP_SKIP ? "not permitted" :
			     strerror(-ret));
		goto out;
	} else if (ret != T_SETUP_OK) {
		ret = report(tc, T_EXIT_FAIL, "ring setup: %s",
			     strerror(-ret));
		goto out;
	}
	ring_up = true;

	iov.iov_base = buf;
	iov.iov_len = BUF_SIZE;
	ret = t_register_buffers(&ring, &iov, 1);
	if (ret == T_SETUP_SKIP || ret == -EOPNOTSUPP) {
		ret = report(tc, T_EXIT_SKIP, "registering the buffer: %s",
			     ret == T_SETUP_SKIP ?
			     "not permitted (RLIMIT_MEMLOCK?)" :
			     "this kernel does not register such memory");
		goto out;
	} else if (ret != T_SETUP_OK) {
		ret = report(tc, T_EXIT_FAIL, "registering the buffer: %s",
			     strerror(-ret));
		goto out;
	}

	ret = read_fixed(&ring, src->fd, buf, BUF_SIZE);
	if (ret != BUF_SIZE) {
		ret = report(tc, T_EXIT_FAIL,
			     "READ_FIXED answered %d (%s), want %d", ret,
			     ret < 0 ? strerror(-ret) : "short read",
			     BUF_SIZE);
		goto out;
	}
	lost = bytes_differ(buf, pat, BUF_SIZE);
	if (lost) {
		ret = report(tc, T_EXIT_FAIL,
			     "READ_FIXED did not fill the buffer: %zu of %d bytes differ before the unregistration",
			     lost, BUF_SIZE);
		goto out;
	}

	ret = io_uring_unregister_buffers(&ring);
	if (ret) {
		ret = report(tc, T_EXIT_FAIL, "unregistering: %s",
			     strerror(-ret));
		goto out;
	}
	io_uring_queue_exit(&ring);
	ring_up = false;

	if (mincore(buf, BUF_SIZE, before)) {
		ret = report(tc, T_EXIT_FAIL, "mincore: %s", strerror(errno));
		goto out;
	}
	if (madvise(buf, BUF_SIZE, MADV_PAGEOUT)) {
		ret = report(tc, errno == EINVAL ? T_EXIT_SKIP : T_EXIT_FAIL,
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
		if (mincore(buf, BUF_SIZE, after)) {
			ret = report(tc, T_EXIT_FAIL, "mincore: %s",
				     strerror(errno));
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
	lost = bytes_differ(buf, pat, BUF_SIZE);
	if (lost && !out)
		ret = report(tc, T_EXIT_FAIL,
			     "%zu of %d bytes changed, though no page left memory",
			     lost, BUF_SIZE);
	else if (lost)
		ret = report(tc, T_EXIT_FAIL,
			     "lost %zu of %d bytes: %d of %zu pages left memory after the unregistration and came back without what READ_FIXED wrote",
			     lost, BUF_SIZE, out, npages);
	else if (!out)
		ret = report(tc, T_EXIT_SKIP,
			     "no page left memory at MADV_PAGEOUT (%s): nothing was tested",
			     swap_on() == 0 ?
			     "no swap, so a dirty page has nowhere to go" :
			     "reclaim kept them");
	else
		ret = report(tc, T_EXIT_PASS,
			     "%d of %zu pages left memory after the unregistration and came back whole",
			     out, npages);
out:
	if (ring_up)
		io_uring_queue_exit(&ring);
	if (buf)
		munmap(buf, BUF_SIZE);
	if (fd >= 0)
		close(fd);
	return ret;
}

static const struct tcase cases[] = {
	{ "shmem",		prepare_shmem,		false },
	{ "madvfree",		prepare_madvfree,	false },
	{ "shmem-odirect",	prepare_shmem,		true },
	{ "madvfree-odirect",	prepare_madvfree,	true },
};

int main(int argc, char *argv[])
{
	struct source buffered, direct = { .fd = -1 }, *src;
	int fails = 0, skips = 0, ret;
	char fname[64], *pat;
	size_t i;

	page_size = sysconf(_SC_PAGESIZE);
	if (page_size < 512 || BUF_SIZE % page_size) {
		fprintf(stderr, "page size %zu does not divide %d\n",
			page_size, BUF_SIZE);
		return T_EXIT_SKIP;
	}

	pat = t_malloc(BUF_SIZE);
	fill_pattern(pat, BUF_SIZE);
	open_memfd_source(&buffered, pat);

	if (argc > 1) {
		open_direct_source(&direct, argv[1], pat);
	} else if (access(".", W_OK)) {
		no_source(&direct, T_EXIT_SKIP,
			  "no file to read O_DIRECT: the working directory is not writable (%s); give one as argv[1]",
			  strerror(errno));
	} else {
		snprintf(fname, sizeof(fname), ".fixed-buf-unpin-dirty.%d",
			 (int)getpid());
		t_create_file(fname, BUF_SIZE);
		open_direct_source(&direct, fname, pat);
		unlink(fname);
	}

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		src = &buffered;
		if (cases[i].direct)
			src = &direct;
		ret = test_case(&cases[i], src, pat);
		fails += ret == T_EXIT_FAIL;
		skips += ret == T_EXIT_SKIP;
	}

	if (buffered.fd >= 0)
		close(buffered.fd);
	if (direct.fd >= 0)
		close(direct.fd);
	free(pat);
	if (fails)
		return T_EXIT_FAIL;
	if (skips == (int)ARRAY_SIZE(cases))
		return T_EXIT_SKIP;
	return T_EXIT_PASS;
}
