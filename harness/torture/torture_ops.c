// SPDX-License-Identifier: GPL-2.0
/*
 * The operations of --torture, one thread each: a struct tt_op with the
 * step the thread loops on and why_not (the types it does not apply to).
 * Every range is a random multiple of the type's granule (4 KiB, the huge
 * page, devdax's 2 MiB) drawn from the thread's own PRNG. The buffer is
 * always back at t->base whole when a layout op (remap, mremap, mprotect,
 * under t->layout) returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "torture.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#define TT_IO_ROUNDS	64	/* I/O rounds per registration of the I/O ring */
#define TT_UPDATES	4	/* slot updates per sparse table */

/* xorshift64*: each thread's own sequence, from the run's seed */
uint64_t lp_tt_rand(struct tt_thr *h)
{
	h->rng ^= h->rng >> 12;
	h->rng ^= h->rng << 25;
	h->rng ^= h->rng >> 27;
	return h->rng * 0x2545F4914F6CDD1DULL;
}

/* Fold a choice into the thread's sequence hash (its first ones only). */
static void seq_add(struct tt_thr *h, uint64_t v)
{
	if (h->nseq++ < TT_SEQ_OPS)
		h->seq = (h->seq ^ v) * 0x100000001B3ULL;
}

/* A random range of 1 to @max_gran granules (capped at a quarter). */
void lp_tt_range(struct tt_thr *h, size_t max_gran, size_t *off, size_t *len)
{
	size_t n = h->t->len / h->t->gran, k;

	if (max_gran > n / 4)
		max_gran = n / 4 ? n / 4 : 1;
	k = 1 + lp_tt_rand(h) % max_gran;
	*len = k * h->t->gran;
	*off = (lp_tt_rand(h) % (n - k + 1)) * h->t->gran;
	seq_add(h, *off ^ (uint64_t)*len << 40);
}

/* ---- reg: the whole table, or a sparse table and slot updates ---- */

/* The thread's own io_uring pinner: 0 or -errno, the row notes it. */
static int ring_init1(struct tt_thr *h)
{
	int ret;

	h->p = (struct pinner){ .entries = TT_RING_ENTRIES, .nowarn = true };
	ret = lp_pinner_open(&h->p, h->t->o);
	h->open = !ret;
	if (ret)
		lp_pinner_close(&h->p);
	return ret;
}

static void ring_fini(struct tt_thr *h)
{
	if (h->registered && h->p.ops->table_unpin(&h->p))
		lp_tt_note(h->t, "%s: the last unregistration failed", h->op->name);
	h->registered = false;
	if (h->open)
		lp_pinner_close(&h->p);
	h->open = false;
}

static void unreg(struct tt_thr *h)
{
	int ret = h->p.ops->table_unpin(&h->p);

	if (ret) {
		lp_tt_count(h->t, TC_HARNESS_ERR);
		lp_tt_note(h->t, "%s: unregister: %s", h->op->name, lp_errno_name(ret));
	}
	h->registered = false;
}

static void reg_updates(struct tt_thr *h)
{
	struct tt_snap snap;
	struct iovec iov;
	size_t off, len;
	int i, ret;

	ret = h->p.ops->table_pin(&h->p, NULL, 1);
	if (ret) {
		lp_tt_count(h->t, TC_HARNESS_ERR);
		lp_tt_note(h->t, "reg: sparse table: %s", lp_errno_name(ret));
		return;
	}
	h->registered = true;
	for (i = 0; i < TT_UPDATES && lp_tt_more(h); i++) {
		lp_tt_range(h, 64, &off, &len);
		/* several mappings: their contract row is the whole buffer's */
		if (h->t->ops->flags & MEM_MULTI) {
			off = 0;
			len = h->t->len;
		}
		iov = (struct iovec){ .iov_base = h->t->base + off, .iov_len = len };
		snap = lp_tt_snap_take(h->t);
		ret = h->p.ops->table_update(&h->p, 0, &iov);
		if (lp_test_fault("reg-efault"))
			ret = -EFAULT;	/* the slot's old buffer stays: harmless */
		lp_tt_own(h->t, ret ? 0 : len, len);
		lp_tt_count(h->t, TC_UPD);
		lp_tt_judge_reg(h, ret, "update", &snap);
	}
	unreg(h);
}

static void reg_step(struct tt_thr *h)
{
	struct iovec iov = { .iov_base = h->t->base, .iov_len = h->t->len };
	uint64_t r = lp_tt_rand(h) & 1;
	struct tt_snap snap;
	bool calm;
	int ret;

	seq_add(h, r);
	if (r) {
		reg_updates(h);
		return;
	}
	/*
	 * LONGPIN_TEST_FAULT=reg-efault-calm: every other one with the
	 * layout ops held off, answering -EFAULT, which no race excuses
	 */
	calm = lp_test_fault("reg-efault-calm") && h->regs++ % 2;
	if (calm)
		pthread_mutex_lock(&h->t->layout);
	snap = lp_tt_snap_take(h->t);
	ret = lp_tt_reg_fault(h, h->p.ops->table_pin(&h->p, &iov, 1));
	lp_tt_own(h->t, ret ? 0 : h->t->len, h->t->len);
	if (calm && !ret)
		unreg(h);
	if (calm)
		ret = -EFAULT;
	lp_tt_count(h->t, TC_REG);
	lp_tt_judge_reg(h, ret, "register", &snap);
	if (calm)
		pthread_mutex_unlock(&h->t->layout);
	if (!ret) {
		h->registered = true;
		unreg(h);
	}
}

/* ---- io: own registration, READ_FIXED then WRITE_FIXED a pattern ---- */

static int io_init(struct tt_thr *h)
{
	h->want = aligned_alloc(4096, h->t->io_len);
	h->got = aligned_alloc(4096, h->t->io_len);
	if (!h->want || !h->got)
		return -ENOMEM;
	return ring_init1(h);
}

static void io_fini(struct tt_thr *h)
{
	ring_fini(h);
	free(h->want);
	free(h->got);
}

/*
 * The pattern into the pinned pages at @off (READ_FIXED), out of them
 * to the target's second half (WRITE_FIXED), compared there. A
 * content-changing op (a child writing a shared mapping, a hole punch)
 * that ran meanwhile makes a difference "raced"; else it is bad.
 */
static void io_round(struct tt_thr *h, size_t off, uint64_t pattern)
{
	struct tt *t = h->t;
	size_t n = t->io_len;
	unsigned long c0, a0;
	int ret;

	lp_pattern_fill(h->want, n, pattern);
	/* O_DIRECT pins the pages of a pwrite() and a pread() meanwhile */
	lp_tt_own(t, 0, 2 * n);
	if (pwrite(t->tfd, h->want, n, 0) != (ssize_t)n) {
		lp_tt_count(t, TC_HARNESS_ERR);
		lp_tt_note(t, "io: pwrite of the target: %s", strerror(errno));
		return;
	}
	c0 = __atomic_load_n(&t->chg, __ATOMIC_SEQ_CST);
	a0 = __atomic_load_n(&t->chg_active, __ATOMIC_SEQ_CST);
	lp_tt_count(t, TC_IO);
	ret = h->p.ops->fixed_io(&h->p, false, t->tfd, t->base + off, n, 0);
	if (!ret)
		ret = h->p.ops->fixed_io(&h->p, true, t->tfd, t->base + off,
					 n, n);
	if (!ret && pread(t->tfd, h->got, n, n) != (ssize_t)n)
		ret = -errno ? -errno : -EIO;
	if (ret) {
		lp_tt_count(t, TC_IO_BAD);
		lp_tt_note(t, "io: READ_FIXED/WRITE_FIXED at %zu: %s", off,
			lp_errno_name(ret));
	} else if (!memcmp(h->got, h->want, n)) {
		lp_tt_count(t, TC_IO_OK);
	} else if (a0 || __atomic_load_n(&t->chg, __ATOMIC_SEQ_CST) != c0) {
		lp_tt_count(t, TC_IO_RACED);
	} else {
		lp_tt_count(t, TC_IO_BAD);
		lp_tt_note(t, "io: data at buffer offset %zu differs, no content-changing op meanwhile",
			off);
	}
}

/*
 * Register a quarter of the buffer (all of it when it spans several
 * mappings) on the I/O ring, then rounds at random offsets in it. The
 * choices are drawn whatever the answer, so a seed repeats them.
 */
static void io_step(struct tt_thr *h)
{
	struct tt *t = h->t;
	bool multi = t->ops->flags & MEM_MULTI;
	size_t roff, rlen, pages, off;
	struct tt_snap snap;
	struct iovec iov;
	uint64_t pattern;
	int i, ret;

	lp_tt_range(h, 1, &roff, &rlen);
	rlen = multi ? t->len : t->len / 4 / t->gran * t->gran;
	roff = multi ? 0 : roff / t->gran * t->gran % (t->len - rlen + t->gran);
	iov = (struct iovec){ .iov_base = t->base + roff, .iov_len = rlen };
	snap = lp_tt_snap_take(t);
	ret = lp_tt_reg_fault(h, h->p.ops->table_pin(&h->p, &iov, 1));
	lp_tt_own(t, ret ? 0 : rlen, rlen);
	lp_tt_count(t, TC_REG);
	lp_tt_judge_reg(h, ret, "register (I/O ring)", &snap);
	h->registered = !ret;
	pages = (rlen - t->io_len) / 4096 + 1;
	for (i = 0; i < TT_IO_ROUNDS && lp_tt_more(h); i++) {
		off = roff + lp_tt_rand(h) % pages * 4096;
		pattern = lp_tt_rand(h);
		seq_add(h, off);
		if (h->registered)
			io_round(h, off, pattern);
	}
	if (h->registered)
		unreg(h);
}

/* ---- remap and mremap: a range unmapped under the registrations ---- */

static const char *single_map(const struct tt *t)
{
	if (t->ops->flags & MEM_MULTI)
		return "the buffer spans several mappings";
	if (!t->m.shm && (t->m.map != t->m.addr || t->m.map_len != t->m.len))
		return "the buffer is not one whole mapping";
	return NULL;
}

/* A new mapping of a range is the same memory only for private anon or a file. */
static const char *remap_why_not(const struct tt *t)
{
	const char *why = single_map(t);

	if (why)
		return why;
	if (t->m.shm)
		return "SysV shm is attached whole (shmat)";
	if (t->m.fd < 0 && !(t->ops->flags & MEM_ANON))
		return "a new mapping would be another object (shmem, hugetlb file)";
	return NULL;
}

static void remap_step(struct tt_thr *h)
{
	struct tt *t = h->t;
	int prot = t->ops->flags & MEM_RDONLY ? PROT_READ : PROT_READ | PROT_WRITE;
	int flags = MAP_FIXED_NOREPLACE;
	size_t off, len;
	void *p;

	lp_tt_range(h, 64, &off, &len);
	flags |= t->m.fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS :
		 !strcmp(t->ops->map, "private") ? MAP_PRIVATE : MAP_SHARED;
	pthread_mutex_lock(&t->layout);
	lp_tt_lay_begin(t);
	lp_tt_count(t, TC_REMAP);
	if (munmap(t->base + off, len)) {
		lp_tt_count(t, TC_OP_ERR);
		goto out;
	}
	sched_yield();
	/* a shared hugetlb file's holes are reserved again by the mmap */
	lp_tt_resv_begin(t);
	p = mmap(t->base + off, len, prot, flags, t->m.fd, t->m.fd < 0 ? 0 : off);
	lp_tt_resv_end(t);
	if (p != t->base + off) {
		lp_tt_count(t, TC_HARNESS_ERR);
		lp_tt_note(t, "remap: mmap at %zu: %s", off,
			p == MAP_FAILED ? strerror(errno) : "elsewhere");
		if (p != MAP_FAILED)
			munmap(p, len);
		goto out;
	}
	if (t->ops->flags & MEM_THP)
		madvise(p, len, MADV_HUGEPAGE);
out:
	lp_tt_lay_end(t);
	pthread_mutex_unlock(&t->layout);
}

static void mremap_step(struct tt_thr *h)
{
	struct tt *t = h->t;
	size_t off, len;

	lp_tt_range(h, t->spare_len / t->gran, &off, &len);
	pthread_mutex_lock(&t->layout);
	lp_tt_lay_begin(t);
	lp_tt_count(t, TC_MREMAP);
	if (mremap(t->base + off, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   t->spare) == MAP_FAILED) {
		lp_tt_count(t, TC_OP_ERR);
		goto out;
	}
	sched_yield();
	if (mremap(t->spare, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   t->base + off) == MAP_FAILED) {
		lp_tt_count(t, TC_HARNESS_ERR);
		lp_tt_note(t, "mremap back to %zu: %s", off, strerror(errno));
	}
out:
	lp_tt_lay_end(t);
	pthread_mutex_unlock(&t->layout);
}

/* ---- fork: the child writes its copy of a range and exits ---- */

static void child_fault(int sig)
{
	(void)sig;
	_exit(3);
}

static void fork_step(struct tt_thr *h)
{
	struct tt *t = h->t;
	struct sigaction sa = { .sa_handler = child_fault };
	size_t off, len;
	int status;
	pid_t pid;

	lp_tt_range(h, 64, &off, &len);
	if (t->shared)
		lp_tt_chg_begin(t);
	lp_tt_count(t, TC_FORK);
	pid = fork();
	if (!pid) {
		/* a range unmapped, read-only or past EOF meanwhile: exit 3 */
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
		if (!(t->ops->flags & MEM_RDONLY))
			memset(t->base + off, 0xcc, len);
		_exit(0);
	}
	if (pid < 0)
		lp_tt_count(t, TC_OP_ERR);
	else if (waitpid(pid, &status, 0) != pid)
		lp_tt_count(t, TC_HARNESS_ERR);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		lp_tt_count(t, TC_CHILD_FAULTED);
	else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		lp_tt_count(t, TC_HARNESS_ERR);
		lp_tt_note(t, "fork: child status 0x%x", status);
	}
	if (t->shared)
		lp_tt_chg_end(t);
}

/* ---- madvise: DONTNEED, PAGEOUT, COLD of a range ---- */

static void madvise_step(struct tt_thr *h)
{
	static const int advice[] = { MADV_DONTNEED, MADV_PAGEOUT, MADV_COLD };
	uint64_t a = lp_tt_rand(h) % ARRAY_SIZE(advice);
	size_t off, len;

	seq_add(h, a);
	lp_tt_range(h, 64, &off, &len);
	lp_tt_count(h->t, TC_MADVISE);
	/* a range unmapped meanwhile (ENOMEM), a type that refuses (EINVAL) */
	if (madvise(h->t->base + off, len, advice[a]))
		lp_tt_count(h->t, TC_OP_ERR);
}

/* ---- trunc: ftruncate down and back, or punch a hole ---- */

static const char *trunc_why_not(const struct tt *t)
{
	if (t->ops->flags & MEM_MULTI)
		return "the file is a part of the buffer";
	if (t->m.fd < 0 || t->ops->place == PLACE_DEVDAX ||
	    !strcmp(t->ops->backing, "secretmem"))
		return "no file to truncate";
	return NULL;
}

/* What a truncation starts from. */
struct trunc_seen {
	long blocks;		/* the file's (512 bytes each), -1: unknown */
	long rsvd;		/* HugePages_Rsvd, LONG_MIN: not read */
	struct tt_snap resv;	/* the ops that may reserve huge pages */
};

static void trunc_seen(struct tt *t, struct trunc_seen *s)
{
	struct stat st;

	s->blocks = fstat(t->m.fd, &st) ? -1 : (long)st.st_blocks;
	s->resv = lp_tt_resv_take(t);
	s->rsvd = t->rsvd_judged ? lp_rsvd_now() : LONG_MIN;
}

/*
 * After a truncation that cut @cut granules (@s: before it): what it can
 * have given back twice (lp_trunc_resv()), added to t->trunc_resv. The
 * file's blocks before and after tell the pages it freed; HugePages_Rsvd
 * before and after, what it gave back, unless an op that reserves ran
 * meanwhile (then the pages it cut that held none bound it alone).
 */
static void trunc_account(struct tt *t, const struct trunc_seen *s, long cut)
{
	long rsvd = s->rsvd == LONG_MIN ? LONG_MIN : lp_rsvd_now(), freed = 0;
	bool known = rsvd != LONG_MIN && !lp_tt_resv_raced(t, &s->resv);
	struct stat st;

	if (s->blocks >= 0 && !fstat(t->m.fd, &st))
		freed = (s->blocks - (long)st.st_blocks) * 512 / (long)t->gran;
	__atomic_add_fetch(&t->trunc_resv,
			   lp_trunc_resv(cut, freed, known ? s->rsvd - rsvd : 0,
					 known),
			   __ATOMIC_SEQ_CST);
}

static void trunc_step(struct tt_thr *h)
{
	struct tt *t = h->t;
	uint64_t punch = lp_tt_rand(h) & 1;
	struct trunc_seen seen;
	size_t off, len;
	int ret;

	seq_add(h, punch);
	lp_tt_range(h, 64, &off, &len);
	if (punch) {
		/* a large folio it cannot split is zeroed in place */
		lp_tt_chg_begin(t);
		lp_tt_lay_begin(t);	/* a hole a huge page may not refill */
		lp_tt_count(t, TC_PUNCH);
		ret = fallocate(t->m.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				off, len);
		lp_tt_lay_end(t);
		lp_tt_chg_end(t);
	} else {
		/* and a large folio across the new EOF is zeroed past it */
		lp_tt_chg_begin(t);
		lp_tt_lay_begin(t);
		lp_tt_count(t, TC_TRUNCATE);
		trunc_seen(t, &seen);
		ret = ftruncate(t->m.fd, off);
		if (!ret)
			trunc_account(t, &seen, (t->len - off) / t->gran);
		sched_yield();
		if (ftruncate(t->m.fd, t->len)) {
			lp_tt_count(t, TC_HARNESS_ERR);
			lp_tt_note(t, "truncate back to %zu: %s", t->len, strerror(errno));
		}
		lp_tt_lay_end(t);
		lp_tt_chg_end(t);
	}
	if (ret)
		lp_tt_count(t, TC_OP_ERR);
}

/* ---- thp: MADV_HUGEPAGE / NOHUGEPAGE / COLLAPSE, compaction ---- */

static const char *thp_why_not(const struct tt *t)
{
	return t->ops->flags & MEM_THP ? NULL : "not a THP type";
}

#define COMPACT_GAP_NS	1000000000ULL

/*
 * Compact all zones, as root: at most once a second, and at most a tenth
 * of the thread's time. A compaction of a host whose memory QEMUs hold
 * can take most of a second, and the thread has its madvise()s to race.
 * LONGPIN_TEST_FAULT=compact-slow makes each one a second longer.
 */
static bool compact(struct tt_thr *h)
{
	uint64_t now = lp_now_ns(), took;
	int fd;

	if (!h->t->root || now < h->next_compact)
		return false;
	fd = open("/proc/sys/vm/compact_memory", O_WRONLY);
	if (fd < 0) {
		h->next_compact = now + COMPACT_GAP_NS;
		return false;
	}
	if (write(fd, "1", 1) != 1)
		lp_tt_count(h->t, TC_OP_ERR);
	close(fd);
	if (lp_test_fault("compact-slow"))
		nanosleep(&(struct timespec){ .tv_sec = 1 }, NULL);
	lp_tt_count(h->t, TC_COMPACT);
	took = 10 * (lp_now_ns() - now);
	h->next_compact = now + (took > COMPACT_GAP_NS ? took : COMPACT_GAP_NS);
	return true;
}

static void thp_step(struct tt_thr *h)
{
	static const int advice[] = { MADV_HUGEPAGE, MADV_NOHUGEPAGE,
				      MADV_COLLAPSE };
	uint64_t a = lp_tt_rand(h) % (ARRAY_SIZE(advice) + 1);
	size_t off, len;

	seq_add(h, a);
	lp_tt_range(h, 1, &off, &len);
	if (a == ARRAY_SIZE(advice) && compact(h))
		return;
	a %= ARRAY_SIZE(advice);
	/* one THP: the size is a multiple of 2 MiB, the granule 4 KiB */
	off &= ~(2 * MiB - 1);
	len = 2 * MiB;
	lp_tt_count(h->t, TC_THP);
	/* COLLAPSE of pinned pages fails (EAGAIN), as may a hole (ENOMEM) */
	if (madvise(h->t->base + off, len, advice[a]))
		lp_tt_count(h->t, TC_OP_ERR);
}

/* ---- mprotect: a range read-only, then read-write again ---- */

static const char *mprotect_why_not(const struct tt *t)
{
	return t->ops->flags & MEM_RDONLY ? "the buffer stays read-only" : NULL;
}

static void mprotect_step(struct tt_thr *h)
{
	struct tt *t = h->t;
	size_t off, len;

	lp_tt_range(h, 64, &off, &len);
	pthread_mutex_lock(&t->layout);
	lp_tt_lay_begin(t);
	lp_tt_count(t, TC_MPROTECT);
	if (mprotect(t->base + off, len, PROT_READ)) {
		lp_tt_count(t, TC_OP_ERR);
		goto out;
	}
	sched_yield();
	if (mprotect(t->base + off, len, PROT_READ | PROT_WRITE)) {
		lp_tt_count(t, TC_HARNESS_ERR);
		lp_tt_note(t, "mprotect back to read-write at %zu: %s", off,
			strerror(errno));
	}
out:
	lp_tt_lay_end(t);
	pthread_mutex_unlock(&t->layout);
}

/* ---- migrate: move_pages between nodes 0 and 1 ---- */

static const char *migrate_why_not(const struct tt *t)
{
	(void)t;
	return access("/sys/devices/system/node/node1", F_OK) ?
	       "one NUMA node" : NULL;
}

static void migrate_step(struct tt_thr *h)
{
	void *pages[16];
	int nodes[16], status[16];
	size_t off, len, i, n;
	uint64_t node = lp_tt_rand(h) & 1;

	seq_add(h, node);
	lp_tt_range(h, 16, &off, &len);
	n = len / h->t->gran < 16 ? len / h->t->gran : 16;
	for (i = 0; i < n; i++) {
		pages[i] = h->t->base + off + i * h->t->gran;
		nodes[i] = node;
	}
	lp_tt_count(h->t, TC_MIGRATE);
	/* MPOL_MF_MOVE (2); pinned pages stay (status -EBUSY/-EAGAIN) */
	if (syscall(SYS_move_pages, 0, n, pages, nodes, status, 2) < 0)
		lp_tt_count(h->t, TC_OP_ERR);
}

/* The operations, one thread each, in the order of the CSV's op columns. */
static const struct tt_op ops[] = {
	{ .name = "reg", .init = ring_init1, .step = reg_step, .fini = ring_fini },
	{ .name = "io", .init = io_init, .step = io_step, .fini = io_fini },
	{ .name = "remap", .step = remap_step, .why_not = remap_why_not,
	  .efault_race = true },
	{ .name = "mremap", .step = mremap_step, .why_not = single_map,
	  .efault_race = true },
	{ .name = "fork", .step = fork_step },
	{ .name = "madvise", .step = madvise_step },
	{ .name = "trunc", .step = trunc_step, .why_not = trunc_why_not,
	  .efault_race = true },
	{ .name = "thp", .step = thp_step, .why_not = thp_why_not },
	{ .name = "mprotect", .step = mprotect_step,
	  .why_not = mprotect_why_not, .efault_race = true },
	{ .name = "migrate", .step = migrate_step,
	  .why_not = migrate_why_not },
};

const struct tt_op *lp_tt_op_nth(size_t i)
{
	return i < ARRAY_SIZE(ops) ? &ops[i] : NULL;
}
