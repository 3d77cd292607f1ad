// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring pinner's I/O on its registered buffer (its io operation):
 * a data check (WRITE_FIXED a pattern, READ_FIXED it back elsewhere in
 * the buffer, compare), then READ_FIXED against plain READ into the same
 * memory, repeated.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uring.h"

#define CHECK_MAX	(4 * MiB)	/* bytes written and read back */
#define MAX_SLOTS	1024

struct target {
	int fd;
	off_t size;
	bool blk, direct, nullblk, own;
	bool created;			/* --target did not exist: ours */
	off_t was;			/* --target's size before, or -1 */
	int fill_fd;			/* --inject fill's file, or -1 */
	char path[PATH_MAX];
};

/* One batch: n I/Os of bs, at most qd in flight, buffer slots cycling. */
struct batch {
	int op;				/* IORING_OP_{READ,WRITE}_FIXED, _READ */
	int fd;
	char *base;
	size_t slots;
	unsigned int bs, qd;
	off_t span;			/* offsets wrap at this */
	uint64_t n;			/* UINT64_MAX: until the deadline */
	uint64_t deadline_ns;		/* 0: none */
	uint64_t done, ns;		/* out */
};

static void batch_prep(struct io_uring_sqe *sqe, struct batch *b, uint64_t i)
{
	char *buf = b->base + (i % b->slots) * b->bs;
	off_t off = (off_t)((i * b->bs) % b->span);

	if (b->op == IORING_OP_WRITE_FIXED)
		io_uring_prep_write_fixed(sqe, b->fd, buf, b->bs, off, 0);
	else if (b->op == IORING_OP_READ_FIXED)
		io_uring_prep_read_fixed(sqe, b->fd, buf, b->bs, off, 0);
	else
		io_uring_prep_read(sqe, b->fd, buf, b->bs, off);
}

/* Returns 0 or a negative errno (a short transfer is -EIO). */
static int batch_run(struct io_uring *ring, struct batch *b)
{
	struct io_uring_cqe *cqe;
	uint64_t sub = 0, t0 = lp_now_ns(), n = b->n;
	unsigned int inflight = 0;
	int err = 0, ret;

	b->done = 0;
	while (b->done < n) {
		while (!err && inflight < b->qd && sub < n) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			if (!sqe)
				break;
			batch_prep(sqe, b, sub++);
			inflight++;
		}
		ret = io_uring_submit_and_wait(ring, 1);
		if (ret < 0 && ret != -EINTR)
			return ret;
		while (io_uring_peek_cqe(ring, &cqe) == 0) {
			if (cqe->res != (int)b->bs && !err)
				err = cqe->res < 0 ? cqe->res : -EIO;
			io_uring_cqe_seen(ring, cqe);
			inflight--;
			b->done++;
		}
		if (err || (b->deadline_ns && lp_now_ns() >= b->deadline_ns))
			n = sub;	/* stop submitting, reap what flies */
	}
	b->ns = lp_now_ns() - t0;
	return err;
}

/*
 * The span of the reads: the buffer's own size in whole MiB (at least
 * one), so that each slot of a large buffer reads its own part of the
 * target rather than the first 16 MiB over and over.
 */
static off_t target_span(const struct mem *m)
{
	off_t span = ((off_t)m->len + (off_t)MiB - 1) / (off_t)MiB * (off_t)MiB;

	return span < (off_t)MiB ? (off_t)MiB : span;
}

/*
 * A block device nothing else uses (run.c's target_check() looked),
 * opened O_EXCL: the kernel refuses it while a mount, a holder, swap or
 * another exclusive opener claims it, and nobody else claims it while
 * the I/O runs.
 */
static int target_open_blk(struct target *t, const char *path,
			   const struct stat *st)
{
	char real[PATH_MAX], why[PATH_MAX + 128];
	uint64_t bytes = 0;

	if (lp_blk_in_use(st->st_rdev, why, sizeof(why)))
		return lp_err(LP_EUSAGE,
			      "--target %s is in use: %s: give an unused block device or a file",
			      path, why);
	t->fd = open(path, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
	t->direct = t->fd >= 0;
	if (t->fd < 0 && errno != EBUSY)
		t->fd = open(path, O_RDWR | O_EXCL | O_CLOEXEC);
	if (t->fd < 0 && errno == EBUSY)
		return lp_err(LP_EUSAGE,
			      "--target %s is in use: another program has it open exclusively (open O_EXCL: %s): give an unused block device or a file",
			      path, strerror(errno));
	if (t->fd < 0)
		return lp_err(LP_EUSAGE, "--target %s: %s", path,
			      strerror(errno));
	ioctl(t->fd, BLKGETSIZE64, &bytes);
	if ((off_t)bytes < t->size)
		t->size = bytes;
	t->blk = true;
	t->nullblk = realpath(path, real) && strstr(real, "/dev/nullb");
	return LP_OK;
}

/*
 * A --target file that could not be filled, put back: a file this run
 * created removed, one that was empty cut back. Returns what the
 * message says of it.
 */
static const char *target_undo(struct target *t)
{
	struct stat st, now;

	if (t->created && !fstat(t->fd, &st) && !stat(t->path, &now) &&
	    st.st_ino == now.st_ino && st.st_dev == now.st_dev &&
	    !unlink(t->path))
		return " (no file was left)";
	if (!t->created && !t->was && !ftruncate(t->fd, 0))
		return " (the file is as it was)";
	return "";
}

static int target_fill(struct target *t)
{
	size_t chunk = MiB;
	char *buf;
	off_t off;
	int ret = LP_OK;

	if (posix_memalign((void **)&buf, 4096, chunk))
		return lp_err(LP_EUSAGE, "out of memory");
	memset(buf, 0x5a, chunk);
	for (off = 0; off < t->size; off += chunk) {
		ssize_t n = pwrite(t->fd, buf, chunk, off);
		const char *err;

		if (n == (ssize_t)chunk)
			continue;
		/* a short write is a full file system that said so late */
		err = strerror(n < 0 ? errno : ENOSPC);
		if (t->own)
			ret = lp_err(LP_SKIP, "the I/O target in %.*s: write at %lld MiB: %s: free space there, or give --target or --no-io",
				     (int)(strrchr(t->path, '/') - t->path), t->path,
				     (long long)(off / MiB), err);
		else
			ret = lp_err(LP_EUSAGE, "--target %s: write at %lld MiB: %s: free space there, or give another --target%s",
				     t->path, (long long)(off / MiB), err,
				     target_undo(t));
		break;
	}
	free(buf);
	return ret;
}

/* --target FILE|BLOCKDEV, or an unlinked temp file in m->target_dir. */
static int target_open(struct target *t, const struct mem *m,
		       const struct opts *o)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->fd = t->fill_fd = -1;
	t->size = target_span(m);
	if (o->target && !stat(o->target, &st) && !S_ISREG(st.st_mode)) {
		if (!S_ISBLK(st.st_mode))
			return lp_err(LP_EUSAGE,
				      "--target %s: not a regular file or a block device: give one",
				      o->target);
		snprintf(t->path, sizeof(t->path), "%s", o->target);
		return target_open_blk(t, o->target, &st);
	}
	if (o->target) {
		snprintf(t->path, sizeof(t->path), "%s", o->target);
		t->fd = open(o->target, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			     0600);
		t->created = t->fd >= 0;
		if (t->fd < 0 && errno == EEXIST)
			t->fd = open(o->target, O_RDWR | O_CLOEXEC);
		t->was = t->fd >= 0 && !t->created && !fstat(t->fd, &st) ?
			 st.st_size : -1;
	} else {
		long long avail = lp_dir_free(m->target_dir);

		/* the buffer's own file may share this file system */
		if (avail >= 0 && avail < (long long)t->size)
			return lp_err(LP_SKIP,
				      "%s has %lld kB free, the I/O target needs %lld kB: free space there, or give --target or --no-io",
				      m->target_dir, avail / (long long)KiB,
				      (long long)t->size / (long long)KiB);
		if (snprintf(t->path, sizeof(t->path), "%s/longpin-target.XXXXXX",
			     m->target_dir) >= (int)sizeof(t->path))
			return lp_err(LP_EUSAGE, "%s: path too long", m->target_dir);
		t->fd = mkstemp(t->path);
		if (t->fd >= 0)
			unlink(t->path);
		t->own = true;
		if (t->fd >= 0 && o->inject && !strcmp(o->inject, "fill"))
			t->fill_fd = lp_mem_fill_dir(m->target_dir);
	}
	if (t->fd < 0)
		return lp_err(LP_EUSAGE, "target %s: %s: give a writable --target",
			      t->path, strerror(errno));
	t->direct = !fcntl(t->fd, F_SETFL, O_DIRECT);
	return target_fill(t);
}

static void target_close(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->fill_fd >= 0)
		close(t->fill_fd);
}

/* Flip one byte of the target under the data check (--inject corrupt). */
static int corrupt_target(struct target *t, off_t off)
{
	char *blk;
	int ret = -EIO;

	if (posix_memalign((void **)&blk, 4096, 4096))
		return -ENOMEM;
	off &= ~(off_t)4095;
	if (pread(t->fd, blk, 4096, off) == 4096) {
		blk[123] ^= 0xff;
		if (pwrite(t->fd, blk, 4096, off) == 4096)
			ret = 0;
	}
	free(blk);
	return ret;
}

static const char *data_check(struct io_uring *ring, struct mem *m,
			      struct target *t, const struct opts *o)
{
	size_t len = m->len / 2 < CHECK_MAX ? m->len / 2 : CHECK_MAX;
	unsigned int chunk = o->bs < len ? o->bs : 4096;
	struct batch b = { .fd = t->fd, .qd = o->qd, .span = t->size };
	char *src = m->addr, *dst;

	len -= len % chunk;
	if (len < 4096 || (off_t)len > t->size)
		return "skipped";
	if (t->nullblk)
		return "skipped";	/* null_blk drops what is written */
	dst = (char *)m->addr + m->len - len;
	lp_pattern_fill(src, len, lp_now_ns());
	memset(dst, 0xa5, len);
	b.base = src;
	b.bs = chunk;
	b.slots = b.n = len / chunk;
	b.op = IORING_OP_WRITE_FIXED;
	if (batch_run(ring, &b))
		return "error";
	if (o->inject && !strcmp(o->inject, "corrupt") &&
	    corrupt_target(t, len / 2))
		return "error";
	b.base = dst;
	b.op = IORING_OP_READ_FIXED;
	if (batch_run(ring, &b))
		return "error";
	return memcmp(src, dst, len) ? "mismatch" : "ok";
}

/* One timed pass; returns MiB/s and sets *iops, or a negative errno. */
static double timed_pass(struct io_uring *ring, struct batch *b,
			 const struct opts *o, double *iops)
{
	int ret;

	b->n = o->runtime > 0 ? UINT64_MAX : o->ios;
	b->deadline_ns = o->runtime > 0 ? lp_now_ns() + o->runtime * 1e9 : 0;
	ret = batch_run(ring, b);
	if (ret)
		return ret;
	*iops = b->done / (b->ns / 1e9);
	return *iops * b->bs / MiB;
}

static int throughput(struct io_uring *ring, struct mem *m, struct target *t,
		      const struct opts *o, struct io_result *r)
{
	unsigned int i, n = o->repeat;
	double fx[n], pl[n], ra[n], fi[n], pi[n];
	struct batch b = { .fd = t->fd, .base = m->addr, .bs = o->bs };
	struct progress pr;

	b.slots = m->len / o->bs < MAX_SLOTS ? m->len / o->bs : MAX_SLOTS;
	if (!b.slots || t->size < (off_t)o->bs)
		return 0;
	b.qd = o->qd < b.slots ? o->qd : b.slots;
	b.span = t->size - t->size % o->bs;
	lp_progress_begin(&pr, m->ops->name, "fixed and plain reads", 2 * n);
	for (i = 0; i < n; i++) {
		b.op = IORING_OP_READ_FIXED;
		fx[i] = timed_pass(ring, &b, o, &fi[i]);
		lp_progress_step(&pr, 2 * i + 1);
		b.op = IORING_OP_READ;
		pl[i] = timed_pass(ring, &b, o, &pi[i]);
		lp_progress_step(&pr, 2 * i + 2);
		if (fx[i] < 0 || pl[i] < 0) {
			lp_progress_end(&pr);
			return fx[i] < 0 ? fx[i] : pl[i];
		}
		ra[i] = pl[i] > 0 ? fx[i] / pl[i] : 0;
	}
	lp_progress_end(&pr);
	r->qd = b.qd;
	r->ios = b.done;
	r->fixed_mibs = lp_stat3_of(fx, n);
	r->plain_mibs = lp_stat3_of(pl, n);
	r->ratio = lp_stat3_of(ra, n);
	r->fixed_iops = lp_stat3_of(fi, n).med;
	r->plain_iops = lp_stat3_of(pi, n).med;
	r->done = true;
	return 0;
}

int lp_io_run(struct io_uring *ring, struct mem *m, const struct opts *o,
	   struct io_result *r)
{
	struct target t;
	int ret;

	memset(r, 0, sizeof(*r));
	strcpy(r->check, "-");
	ret = target_open(&t, m, o);
	if (ret != LP_OK) {
		target_close(&t);
		return ret;
	}
	/* an own temp file is named by its directory: "tmp:/tmp" */
	if (t.own)
		snprintf(r->target, sizeof(r->target), "tmp:%.*s",
			 (int)(strrchr(t.path, '/') - t.path), t.path);
	else
		snprintf(r->target, sizeof(r->target), "%s", t.path);
	r->direct = t.direct;
	r->bs = o->bs;
	snprintf(r->check, sizeof(r->check), "%s", data_check(ring, m, &t, o));
	ret = throughput(ring, m, &t, o, r);
	if (ret)
		lp_warn("%s: fixed-buffer reads from %s failed: %s",
			m->ops->name, t.path, strerror(-ret));
	target_close(&t);
	return LP_OK;
}
