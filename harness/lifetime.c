// SPDX-License-Identifier: GPL-2.0
/*
 * --lifetime CASE: what happens to a registered buffer when its memory
 * changes under the pin (munmap, fork, truncate, hole punch, mremap), whether
 * what READ_FIXED wrote survives reclaim after the unpin, when
 * it is unregistered with I/O in flight, when the ring goes away without
 * unregistering, when a sparse table slot is updated, over many cycles,
 * at the kernel's limits and at RLIMIT_MEMLOCK. One CSV row per prefault
 * (limits: four), op "lifetime-CASE" (limits: "limit-*"). See README.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "longpin.h"

#define LT_CHECK_MAX	(1 * MiB)	/* bytes of each data check */
#define LT_SKIP		1000		/* a case's "cannot run here" */
#define LT_INFLIGHT	64		/* READ_FIXED in flight at unregistration */
#define LT_CYCLES	10000
#define LT_MAX_BUFS	16384		/* IORING_MAX_REG_BUFFERS */

struct lt {
	const struct opts *o;
	const struct contract *c;
	const struct mem_ops *ops;
	enum prefault pf;
	struct io_uring ring;
	bool ring_up, registered;
	bool unchecked;			/* no expected answer known */
	bool defect;			/* the expected answer is a kernel defect */
	bool header_done;		/* the table's header is printed */
	struct mem m;
	bool mem_up;
	int tfd;			/* target file, or -1 */
	size_t chk;			/* bytes of a data check */
	char *want, *got;		/* chk bytes each, 4 KiB aligned */
	struct row r;
	char note[256];
	char check[16];
	long acq0, rel0;
};

struct lt_case {
	const char *name;
	int (*run)(struct lt *t);	/* 0, -errno, or LT_SKIP (note: why) */
	bool own_mem;			/* does not set --mem up itself */
	bool no_target;			/* needs no I/O target file */
	bool refused_too;		/* runs where the contract refuses TYPE */
	const char *const *types;	/* the memory types it applies to */
	const char *why;		/* why not to the others */
};

static void note(struct lt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct lt *t, const char *fmt, ...)
{
	size_t len = strlen(t->note);
	va_list ap;

	if (len && len + 2 < sizeof(t->note)) {
		strcpy(t->note + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(t->note + len, sizeof(t->note) - len, fmt, ap);
	va_end(ap);
}

static void fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t *p = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		p[i] = (i * 0x9E3779B97F4A7C15ULL) ^ seed;
}

/* One fixed read or write of @len at @off, waited for. */
static int fixed_io(struct io_uring *ring, bool write, int fd, void *buf,
		    size_t len, off_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	if (write)
		io_uring_prep_write_fixed(sqe, fd, buf, len, off, idx);
	else
		io_uring_prep_read_fixed(sqe, fd, buf, len, off, idx);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret == (int)len ? 0 : ret < 0 ? ret : -EIO;
}

/* A temp target of 4 x chk next to the memory: want at 0, zeros after. */
static int target_open(struct lt *t)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	off_t off;

	if (snprintf(path, sizeof(path), "%s/longpin-target.XXXXXX",
		     t->mem_up ? t->m.target_dir : tmp && *tmp ? tmp : "/tmp") >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	t->tfd = mkstemp(path);
	if (t->tfd < 0)
		return -errno;
	unlink(path);
	if (fcntl(t->tfd, F_SETFL, O_DIRECT))
		note(t, "target without O_DIRECT");
	fill(t->want, t->chk, now_ns());
	memset(t->got, 0, t->chk);
	for (off = 0; off < 4 * (off_t)t->chk; off += t->chk)
		if (pwrite(t->tfd, off ? t->got : t->want, t->chk, off) !=
		    (ssize_t)t->chk)
			return -errno ? -errno : -EIO;
	return 0;
}

/* Does target[@off, +chk) hold @exp? -EIO with a note if not. */
static int target_holds(struct lt *t, off_t off, const void *exp,
			const char *what)
{
	if (pread(t->tfd, t->got, t->chk, off) != (ssize_t)t->chk)
		return -errno ? -errno : -EIO;
	if (!memcmp(t->got, exp, t->chk))
		return 0;
	note(t, "data check: %s", what);
	strcpy(t->check, "mismatch");
	return -EIO;
}

static int mem_holds(struct lt *t, const void *p, const void *exp,
		     const char *what)
{
	if (!memcmp(p, exp, t->chk))
		return 0;
	note(t, "data check: %s", what);
	strcpy(t->check, "mismatch");
	return -EIO;
}

static int reg(struct lt *t)
{
	struct iovec iov = { .iov_base = t->m.addr, .iov_len = t->m.len };
	uint64_t t0 = now_ns();
	int ret = io_uring_register_buffers(&t->ring, &iov, 1);

	t->r.reg_ns = (now_ns() - t0) / (t->m.len / 4096.0);
	t->r.vmpin[1] = vmpin_kb();
	t->registered = !ret;
	if (ret)
		note(t, "registration answered %d (%s)", ret, errno_name(ret));
	return ret;
}

static int unreg(struct lt *t)
{
	uint64_t t0 = now_ns();
	int ret = io_uring_unregister_buffers(&t->ring);

	t->r.unreg_ns = (now_ns() - t0) / (t->m.len / 4096.0);
	t->registered = false;
	return ret;
}

/* VmPin must still be what the registration made it. */
static int pin_held(struct lt *t, const char *after)
{
	long v = vmpin_kb();

	if (v == t->r.vmpin[1])
		return 0;
	note(t, "VmPin %ld kB after %s, %ld kB when registered", v, after,
	     t->r.vmpin[1]);
	return -EIO;
}

/* Poll VmPin for up to @ms until it is back at its old value. */
static long pin_wait(struct lt *t, unsigned int ms, unsigned int *took)
{
	long v = vmpin_kb();

	for (*took = 0; v != t->r.vmpin[0] && *took < ms; *took += 10) {
		usleep(10000);
		v = vmpin_kb();
	}
	return v;
}

static bool type_is(struct lt *t, const char *const *names)
{
	for (; *names; names++)
		if (!strcmp(*names, t->ops->name))
			return true;
	return false;
}

/* munmap, then fixed I/O still uses the pinned pages. */
static int lt_munmap(struct lt *t)
{
	int ret;

	if (t->ops->flags & MEM_RDONLY) {
		note(t, "%s: the buffer is read-only", t->ops->name);
		return LT_SKIP;
	}
	memcpy(t->m.addr, t->want, t->chk);
	ret = reg(t);
	if (ret)
		return ret;
	if (t->m.shm ? shmdt(t->m.shm) : munmap(t->m.map, t->m.map_len))
		return -errno;
	t->m.shm = t->m.map = NULL;	/* mem_teardown: nothing to unmap */
	ret = pin_held(t, "munmap");
	if (!ret)
		ret = fixed_io(&t->ring, true, t->tfd, t->m.addr, t->chk,
			       t->chk, 0);
	if (!ret)
		ret = target_holds(t, t->chk, t->want,
				   "WRITE_FIXED after munmap wrote other data");
	if (!ret)
		strcpy(t->check, "ok");
	return ret;
}

static const char *const private_types[] = {
	"anon", "anon-thp", "hugetlb", "tmpfs-private", "file-private",
	"fsdax-private", NULL
};

/* Child: overwrite its copy of the buffer, exit 0. */
static void fork_child(struct lt *t)
{
	memset(t->m.addr, 0xcc, t->m.len);
	_exit(((volatile char *)t->m.addr)[0] == (char)0xcc ? 0 : 1);
}

/* fork: the parent's pinned pages stay the parent's. */
static int lt_fork(struct lt *t)
{
	char *buf = t->m.addr;
	int status, ret;
	pid_t pid;

	ret = reg(t);
	if (ret)
		return ret;
	fill(buf + t->chk, t->chk, 42);
	memcpy(t->got, buf + t->chk, t->chk);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		fork_child(t);
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		note(t, "child: status 0x%x", status);
		return -EIO;
	}
	ret = mem_holds(t, buf + t->chk, t->got,
			"the child's writes appear in the parent's buffer");
	if (!ret)
		ret = fixed_io(&t->ring, false, t->tfd, buf, t->chk, 0, 0);
	if (!ret)
		ret = mem_holds(t, buf, t->want,
				"READ_FIXED after fork not seen by the parent");
	if (!ret)
		strcpy(t->check, "ok");
	return ret;
}

static const char *const shmem_file_types[] = { "memfd", "tmpfs-shared", NULL };

/*
 * The file under the buffer loses its pages: the pinned ones still
 * hold what they held and take fixed I/O both ways. The mapping itself
 * is not touched afterwards (beyond EOF it would SIGBUS).
 */
static int lt_shrink(struct lt *t, bool punch)
{
	char *buf = t->m.addr;
	int ret;

	fill(buf, t->chk, 7);
	memcpy(t->got, buf, t->chk);
	ret = reg(t);
	if (ret)
		return ret;
	if (punch ? fallocate(t->m.fd, FALLOC_FL_PUNCH_HOLE |
			      FALLOC_FL_KEEP_SIZE, 0, t->m.len) :
		    ftruncate(t->m.fd, 0))
		return -errno;
	/* the old contents, from the pinned pages */
	ret = fixed_io(&t->ring, true, t->tfd, buf, t->chk, t->chk, 0);
	if (!ret)
		ret = target_holds(t, t->chk, t->got,
				   "WRITE_FIXED lost the pinned pages' data");
	/* new contents into them, and out again */
	if (!ret)
		ret = fixed_io(&t->ring, false, t->tfd, buf, t->chk, 0, 0);
	if (!ret)
		ret = fixed_io(&t->ring, true, t->tfd, buf, t->chk,
			       2 * t->chk, 0);
	if (!ret)
		ret = target_holds(t, 2 * t->chk, t->want,
				   "READ_FIXED then WRITE_FIXED differ");
	if (!ret)
		ret = pin_held(t, punch ? "the hole punch" : "the truncation");
	if (!ret)
		strcpy(t->check, "ok");
	return ret;
}

static int lt_truncate(struct lt *t) { return lt_shrink(t, false); }
static int lt_punch(struct lt *t) { return lt_shrink(t, true); }

/* A free, @align aligned range of @len for MREMAP_FIXED, or NULL. */
static char *reserve(size_t len, size_t align)
{
	char *p = mmap(NULL, len + align, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + len < p + len + align)
		munmap(a + len, p + len + align - (a + len));
	return a;
}

/* mremap elsewhere: the old (registered) range still addresses the pages. */
static int lt_mremap(struct lt *t)
{
	size_t align = t->ops->flags & MEM_HUGETLB ? hugepage_size() :
		       2 * MiB;
	char *old = t->m.addr, *new;
	int ret;

	if ((t->ops->flags & (MEM_MULTI | MEM_RDONLY)) ||
	    (!t->m.shm && (t->m.map != t->m.addr || t->m.map_len != t->m.len))) {
		note(t, "%s: the buffer is not one whole writable mapping",
		     t->ops->name);
		return LT_SKIP;
	}
	ret = reg(t);
	if (ret)
		return ret;
	new = reserve(t->m.len, align);
	if (!new)
		return -errno;
	if (mremap(old, t->m.len, t->m.len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   new) == MAP_FAILED) {
		ret = -errno;
		munmap(new, t->m.len);
		note(t, "mremap: %s", strerror(-ret));
		return ret;
	}
	if (t->m.shm)
		t->m.shm = new;
	else
		t->m.map = new;
	t->m.addr = new;
	memset(new, 0, t->chk);
	ret = pin_held(t, "mremap");
	if (!ret)
		ret = fixed_io(&t->ring, false, t->tfd, old, t->chk, 0, 0);
	if (!ret)
		ret = mem_holds(t, new, t->want,
				"READ_FIXED at the old address not seen at the new one");
	if (!ret)
		strcpy(t->check, "ok");
	return ret;
}

/* Bytes of the buffer that no longer hold the pattern READ_FIXED put there. */
static size_t bytes_lost(struct lt *t)
{
	const char *buf = t->m.addr;
	size_t off, i, n, lost = 0;

	for (off = 0; off < t->m.len; off += n) {
		n = t->m.len - off < t->chk ? t->m.len - off : t->chk;
		if (!memcmp(buf + off, t->want, n))
			continue;
		for (i = 0; i < n; i++)
			lost += buf[off + i] != t->want[i];
	}
	return lost;
}

/*
 * Ask reclaim for the buffer's pages. DAX memory is not reclaimed (its
 * huge device mappings are left alone); hugetlb answers EINVAL. After the
 * page-out, drop the clean page cache of file types (root only).
 */
static void page_out(struct lt *t, const char *when)
{
	int fd;

	if (t->m.dax == 1 || t->ops->place == PLACE_DEVDAX) {
		note(t, "DAX: not reclaimable, no page-out %s", when);
		return;
	}
	if (madvise(t->m.addr, t->m.len, MADV_PAGEOUT))
		note(t, "MADV_PAGEOUT %s: %s", when, errno_name(errno));
	if (!(t->ops->flags & MEM_FILE) || geteuid())
		return;
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		note(t, "drop_caches: %s", errno_name(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * READ_FIXED a pattern into the whole buffer, unpin it, reclaim it, read it
 * back. A write through the bvecs of a fixed buffer dirties neither the PTE
 * nor the page: unless the unpin marks the pages dirty, reclaim takes them
 * for clean and drops them (a clean shmem page is a hole) and the data is
 * lost. @pinned: page out while still registered (the pins keep the pages,
 * which end up clean and unmapped), unregister, map them again by reading,
 * page out again.
 */
static int reclaim(struct lt *t, bool pinned)
{
	char *buf = t->m.addr;
	size_t off, n, lost;
	int ret;

	if (t->ops->flags & MEM_RDONLY) {
		note(t, "%s: the buffer is read-only", t->ops->name);
		return LT_SKIP;
	}
	ret = reg(t);
	for (off = 0; !ret && off < t->m.len; off += n) {
		n = t->m.len - off < t->chk ? t->m.len - off : t->chk;
		ret = fixed_io(&t->ring, false, t->tfd, buf + off, n, 0, 0);
	}
	if (ret)
		return ret;
	if (pinned)
		page_out(t, "while registered");
	ret = unreg(t);
	if (ret)
		return ret;
	if (pinned)	/* the backend's read prefault: it knows its holes */
		(t->ops->populate ? t->ops->populate : mem_populate)(&t->m,
								      PF_READ);
	page_out(t, "after unregistering");
	lost = bytes_lost(t);
	if (lost) {
		note(t, "data lost: %zu of %zu bytes differ from what READ_FIXED wrote",
		     lost, t->m.len);
		strcpy(t->check, "mismatch");
		return -EIO;
	}
	strcpy(t->check, "ok");
	return 0;
}

static int lt_reclaim(struct lt *t) { return reclaim(t, false); }
static int lt_reclaim_pinned(struct lt *t) { return reclaim(t, true); }

/* Reap @n completions (10 s each at most); counts those of @bs bytes. */
static int reap(struct lt *t, unsigned int n, unsigned int bs,
		unsigned int *good)
{
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct io_uring_cqe *cqe;
	int ret = 0, err;
	unsigned int i;

	for (*good = 0, i = 0; i < n; i++) {
		err = io_uring_wait_cqe_timeout(&t->ring, &cqe, &ts);
		if (err) {
			note(t, "%u of %u completions, then %s", i, n,
			     errno_name(err));
			return err;
		}
		if (cqe->res == (int)bs)
			(*good)++;
		else if (!ret)
			ret = cqe->res < 0 ? cqe->res : -EIO;
		io_uring_cqe_seen(&t->ring, cqe);
	}
	return ret;
}

/* Unregister while READ_FIXED are in flight: it returns, all complete. */
static int lt_unreg_inflight(struct lt *t)
{
	unsigned int bs = t->o->bs, n = LT_INFLIGHT, i, good, ready;
	char *buf = t->m.addr;
	uint64_t t0;
	int ret, uret;

	if (t->ops->flags & MEM_RDONLY) {
		note(t, "%s: the buffer is read-only", t->ops->name);
		return LT_SKIP;
	}
	if (n > t->m.len / bs)
		n = t->m.len / bs;
	if (n > t->chk / bs)
		n = t->chk / bs;
	if (!n)
		return -EINVAL;
	ret = reg(t);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		io_uring_prep_read_fixed(io_uring_get_sqe(&t->ring),
					 t->tfd, buf + i * bs, bs, i * bs, 0);
	ret = io_uring_submit(&t->ring);
	if (ret != (int)n)
		return ret < 0 ? ret : -EIO;
	ready = io_uring_cq_ready(&t->ring);
	t0 = now_ns();
	uret = unreg(t);
	note(t, "unregistered in %.0f us with %u of %u READ_FIXED completed",
	     (now_ns() - t0) / 1e3, ready, n);
	ret = reap(t, n, bs, &good);
	if (uret)
		return uret;
	if (ret)
		return ret;
	if (good != n)
		return -EIO;
	if (memcmp(buf, t->want, (size_t)n * bs)) {
		note(t, "data check: READ_FIXED data");
		strcpy(t->check, "mismatch");
		return -EIO;
	}
	strcpy(t->check, "ok");
	return 0;
}

/* Exit the ring registered: its teardown (asynchronous) unpins. */
static int lt_close_ring(struct lt *t)
{
	unsigned int took;
	long v;
	int ret = reg(t);

	if (ret)
		return ret;
	io_uring_queue_exit(&t->ring);
	t->ring_up = t->registered = false;
	v = pin_wait(t, 5000, &took);
	t->r.vmpin[2] = v;
	if (v != t->r.vmpin[0]) {
		note(t, "VmPin %ld kB 5 s after the ring's exit, %ld kB before",
		     v, t->r.vmpin[0]);
		return -EIO;
	}
	note(t, "VmPin back %u ms after the ring's exit", took);
	return 0;
}

/* Slot 0 of a sparse table gets @iov; returns 0 or -errno. */
static int update0(struct lt *t, void *addr, size_t len)
{
	struct iovec iov = { .iov_base = addr, .iov_len = len };
	__u64 tag = 0;
	int ret = io_uring_register_buffers_update_tag(&t->ring, 0, &iov,
						      &tag, 1);

	return ret < 0 ? ret : ret == 1 ? 0 : -EIO;
}

/* The row expects the contract's answer for TYPE, if it has one. */
static bool contract_expect(struct lt *t)
{
	bool nofault;

	t->r.have_expected = contract_lookup(t->c, t->ops->name, t->pf,
					     t->m.len, &t->r.expected, &nofault);
	return t->r.have_expected;
}

/*
 * Sparse table, slot 0 = anon; update slot 0 to the --mem buffer. The
 * update answers what registering TYPE answers (the contract); after a
 * refusal the anon buffer still serves slot 0.
 */
static int lt_update(struct lt *t)
{
	char *anon;
	int ret, upd, exp;

	contract_expect(t);
	anon = mmap(NULL, t->chk, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (anon == MAP_FAILED)
		return -errno;
	ret = io_uring_register_buffers_sparse(&t->ring, 1);
	if (!ret) {
		t->registered = true;
		ret = update0(t, anon, t->chk);
	}
	if (ret) {
		note(t, "sparse table with an anon slot 0: %s", errno_name(ret));
		goto out;
	}
	upd = update0(t, t->m.addr, t->m.len);
	t->r.vmpin[1] = vmpin_kb();
	note(t, "update answered %s", upd ? errno_name(upd) : "0");
	t->unchecked = !t->r.have_expected;
	exp = t->r.have_expected ? t->r.expected : upd;
	if (upd != exp) {
		ret = upd;
		goto out;
	}
	memset(upd ? anon : t->m.addr, 0, t->chk);
	ret = fixed_io(&t->ring, false, t->tfd, upd ? anon : t->m.addr,
		       t->chk, 0, 0);
	if (ret)
		note(t, "READ_FIXED into slot 0 (%s buffer): %s",
		     upd ? "the old anon" : "the new", errno_name(ret));
	else
		ret = mem_holds(t, upd ? anon : t->m.addr, t->want,
				"slot 0 read other data");
	if (!ret) {
		strcpy(t->check, "ok");
		ret = upd;
	} else if (ret == upd) {
		ret = -EIO;
	}
out:
	if (t->registered)
		unreg(t);
	munmap(anon, t->chk);
	return ret;
}

/*
 * The answer every cycle must give: the contract's for TYPE, else (no
 * contract) whatever a first registration answers, unchecked.
 */
static int cycles_answer(struct lt *t)
{
	struct iovec iov = { .iov_base = t->m.addr, .iov_len = t->m.len };
	int ret;

	if (contract_expect(t))
		return t->r.expected;
	t->unchecked = true;
	ret = io_uring_register_buffers(&t->ring, &iov, 1);
	if (!ret)
		io_uring_unregister_buffers(&t->ring);
	return ret;
}

/* Were the system-wide pins balanced over the cycles? 0 or -EIO. */
static int cycles_balanced(struct lt *t, unsigned int n, int answer)
{
	long acq, rel;

	if (t->o->concurrent) {
		note(t, "nr_foll_pin not judged here (--concurrent)");
		return 0;
	}
	if (t->acq0 < 0 || vmstat_pins(&acq, &rel))
		return 0;
	if (geteuid()) {
		note(t, "pin counters not checked: not root (no stat_refresh)");
		return 0;
	}
	if (acq - t->acq0 != rel - t->rel0) {
		/* another process's pin in flight at the end: let it finish */
		usleep(200000);
		vmstat_pins(&acq, &rel);
	}
	note(t, "nr_foll_pin acquired %+ld released %+ld", acq - t->acq0,
	     rel - t->rel0);
	if (acq - t->acq0 != rel - t->rel0)
		return -EIO;
	/* a refused type may be refused before anything is pinned */
	return !answer && acq - t->acq0 < (long)n ? -EIO : 0;
}

/*
 * 10,000 (or --cycles N) register/unregister cycles, each answering what
 * the contract says for TYPE (refused types too: a refusal must unpin
 * what it pinned); VmPin and the pin counters balanced at the end.
 */
static int lt_cycles(struct lt *t)
{
	unsigned int n = t->o->cycles ? t->o->cycles : LT_CYCLES;
	struct cycles_result *cr = &t->r.cyc;
	long pages = t->m.len / 4096;
	int answer = cycles_answer(t), ret;
	uint64_t t0;

	t0 = now_ns();
	ret = cycles_run(&t->ring, &t->m, n, t->o->mmap_probe, false, answer,
			 cr);
	if (ret)
		return ret;
	t->r.vmpin[1] = t->r.vmpin[0];
	note(t, "%u cycles of %ld pages in %.2f s, each answering %s", n,
	     pages, (now_ns() - t0) / 1e9, answer ? errno_name(answer) : "0");
	if (cr->failed_at) {
		note(t, "cycle %u answered %s", cr->failed_at,
		     cr->failed_result ? errno_name(cr->failed_result) : "0");
		return cr->failed_result ? cr->failed_result : -EIO;
	}
	ret = cycles_balanced(t, n, answer);
	return ret ? ret : answer;
}

/*
 * How many kB this user may still have charged: the largest anon buffer
 * of 4 KiB pages that registers (binary search up to @limit). What the
 * limit leaves out is charged already: this ring (6.18 charges its
 * rings), other rings of the same user, rings still being torn down.
 */
static long headroom_kb(struct lt *t, size_t limit)
{
	size_t lo = 0, hi = limit / 4096, mid;
	struct iovec iov;
	int ret = 0;
	char *p;

	p = mmap(NULL, limit, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	madvise(p, limit, MADV_NOHUGEPAGE);
	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		iov = (struct iovec){ .iov_base = p, .iov_len = mid * 4096 };
		ret = io_uring_register_buffers(&t->ring, &iov, 1);
		if (ret && ret != -ENOMEM)
			break;
		if (!ret)
			io_uring_unregister_buffers(&t->ring);
		if (!ret)
			lo = mid;
		else
			hi = mid - 1;
	}
	munmap(p, limit);
	return ret && ret != -ENOMEM ? ret : (long)(lo * 4);
}

/*
 * Register under RLIMIT_MEMLOCK: the kernel answers -ENOMEM when the
 * buffer does not fit in what the limit leaves (headroom_kb()).
 */
static int lt_memlock(struct lt *t)
{
	size_t kb = t->m.len / KiB, lim_kb;
	bool limited;
	long room = -1;
	struct rlimit rl;
	int ret;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return -errno;
	lim_kb = rl.rlim_cur / KiB;
	limited = !have_cap_ipc_lock() && rl.rlim_cur != RLIM_INFINITY &&
		  rl.rlim_cur <= GiB;
	if (limited) {
		room = headroom_kb(t, rl.rlim_cur);
		if (room < 0)
			return room;
		note(t, "RLIMIT_MEMLOCK %zu kB; charged already %zu kB; buffer %zu kB",
		     lim_kb, lim_kb - room, kb);
	} else {
		note(t, "%s: not charged against a limit",
		     have_cap_ipc_lock() ? "CAP_IPC_LOCK" : "RLIMIT_MEMLOCK unlimited or above 1 GiB");
	}
	contract_expect(t);
	if (limited && (long)kb > room) {
		t->r.have_expected = true;
		t->r.expected = -ENOMEM;
	}
	t->unchecked = !t->r.have_expected;
	ret = reg(t);
	if (ret == -ENOMEM && limited)
		lp_err(0, "the kernel refused %zu kB with -ENOMEM: RLIMIT_MEMLOCK is %zu kB and %zu kB are charged already: it needs at least %zu kB (`ulimit -l %zu`)",
		       kb, lim_kb, lim_kb - room, kb + lim_kb - room,
		       kb + lim_kb - room);
	if (!ret)
		unreg(t);
	return ret;
}

static const struct lt_case cases[] = {
	{ .name = "munmap", .run = lt_munmap },
	{ .name = "fork", .run = lt_fork, .types = private_types,
	  .why = "not a private mapping: the child's writes are the parent's by design" },
	{ .name = "truncate", .run = lt_truncate, .types = shmem_file_types,
	  .why = "needs a shmem file (memfd, tmpfs-shared)" },
	{ .name = "punch", .run = lt_punch, .types = shmem_file_types,
	  .why = "needs a shmem file (memfd, tmpfs-shared)" },
	{ .name = "mremap", .run = lt_mremap },
	{ .name = "reclaim", .run = lt_reclaim },
	{ .name = "reclaim-pinned", .run = lt_reclaim_pinned },
	{ .name = "unreg-inflight", .run = lt_unreg_inflight },
	{ .name = "close-ring", .run = lt_close_ring },
	{ .name = "update", .run = lt_update, .refused_too = true },
	{ .name = "cycles", .run = lt_cycles, .no_target = true,
	  .refused_too = true },
	{ .name = "memlock", .run = lt_memlock, .no_target = true,
	  .refused_too = true },
	{ .name = "limits", .own_mem = true, .no_target = true },
};

/* Judge, print and write one row; returns its exit status. */
static int emit(struct lt *t, const char *op, int result)
{
	struct row *r = &t->r;
	int ret;

	r->result = result;
	r->op = op;
	if (!r->have_expected && !t->unchecked) {
		r->have_expected = true;
		r->expected = 0;
	}
	snprintf(r->io.check, sizeof(r->io.check), "%s", t->check);
	/*
	 * A failed check of the case answers -EIO: the answer judges it
	 * where one is expected; where none is, it still fails.
	 */
	ret = row_judge(r, !r->have_expected && result == -EIO, t->defect,
			t->note);
	ret = row_write(r, t->o, !t->header_done, ret);
	t->header_done = true;
	return ret;
}

static void row_reset(struct lt *t, const char *mem, size_t size)
{
	t->r = (struct row){ .kernel = kernel_release(),
			     .contract = contract_name(t->c), .mem = mem,
			     .pf = t->pf, .size = size, .fs_type = "-",
			     .dax = -1, .thp_kb = -1, .pin_acq = -1,
			     .pin_rel = -1, .resident = { -1, -1 },
			     .dirty_kb = { -1, -1 } };
	t->note[0] = '\0';
	t->unchecked = t->defect = false;
	strcpy(t->check, "-");
	t->r.vmpin[0] = t->r.vmpin[1] = t->r.vmpin[2] = vmpin_kb();
	/* --concurrent: others pin meanwhile, the deltas would be theirs too */
	if (t->o->concurrent || vmstat_pins(&t->acq0, &t->rel0))
		t->acq0 = t->rel0 = -1;
}

static void row_counters(struct lt *t)
{
	long acq, rel;

	if (t->acq0 >= 0 && !vmstat_pins(&acq, &rel)) {
		t->r.pin_acq = acq - t->acq0;
		t->r.pin_rel = rel - t->rel0;
	}
}

/* One limit row on private anon memory of @bufs x @len bytes. */
static int limit_row(struct lt *t, const char *op, unsigned int bufs,
		     size_t len, int expected)
{
	size_t total = (size_t)bufs * len, i;
	struct iovec *iov = calloc(bufs, sizeof(*iov));
	char *p;
	int ret;

	row_reset(t, "anon", total);
	t->r.have_expected = true;
	t->r.expected = expected;
	p = mmap(NULL, total, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!iov || p == MAP_FAILED) {
		free(iov);
		return emit(t, op, -ENOMEM);
	}
	madvise(p, total, MADV_NOHUGEPAGE);	/* VmPin exact, no head scans */
	for (i = 0; t->pf != PF_NONE && total <= GiB && i < total; i += 4096)
		p[i] = t->pf == PF_WRITE ? 1 : *(volatile char *)(p + i);
	for (i = 0; i < bufs; i++)
		iov[i] = (struct iovec){ .iov_base = p + i * len, .iov_len = len };
	ret = io_uring_register_buffers(&t->ring, iov, bufs);
	t->r.vmpin[1] = vmpin_kb();
	if (!ret) {
		io_uring_unregister_buffers(&t->ring);
		if (t->r.vmpin[1] - t->r.vmpin[0] != (long)(total / KiB)) {
			note(t, "VmPin grew %ld kB, want %zu",
			     t->r.vmpin[1] - t->r.vmpin[0], total / KiB);
			ret = -EIO;
		}
	}
	t->r.vmpin[2] = vmpin_kb();
	if (!ret && t->r.vmpin[2] != t->r.vmpin[0]) {
		note(t, "pin leak: VmPin %ld kB -> %ld kB", t->r.vmpin[0],
		     t->r.vmpin[2]);
		ret = -EIO;
	}
	munmap(p, total);
	free(iov);
	row_counters(t);
	return emit(t, op, ret);
}

static int lt_limits(struct lt *t)
{
	int worst = LP_OK, ret, i;
	static const struct {
		const char *op;
		unsigned int bufs;
		size_t len;
		int expected;
	} rows[] = {
		{ "limit-nbufs-16384", LT_MAX_BUFS, 4096, 0 },
		{ "limit-nbufs-16385", LT_MAX_BUFS + 1, 4096, -EINVAL },
		{ "limit-1g", 1, GiB, 0 },
		{ "limit-1g+4k", 1, GiB + 4096, -EFAULT },
	};

	for (i = 0; i < (int)ARRAY_SIZE(rows); i++) {
		ret = limit_row(t, rows[i].op, rows[i].bufs, rows[i].len,
				rows[i].expected);
		if (ret > worst)
			worst = ret;
	}
	return worst;
}

/* Cases on one --mem buffer: those that need it registered. */
static int needs_registrable(struct lt *t, const struct lt_case *k)
{
	bool nofault;
	int err;

	if (k->refused_too)
		return 0;
	if (!contract_lookup(t->c, t->ops->name, t->pf, t->o->size, &err,
			     &nofault) || !err)
		return 0;
	note(t, "%s is refused on this kernel (contract %s: -%s): nothing registered to test",
	     t->ops->name, contract_name(t->c), errno_name(err));
	return LT_SKIP;
}

static int mem_case(struct lt *t, const struct lt_case *k)
{
	char op[48];
	int ret;

	snprintf(op, sizeof(op), "lifetime-%s", k->name);
	row_reset(t, t->ops->name, t->o->size);
	t->r.have_expected = contract_lookup_case(t->c, k->name, t->ops->name,
						  t->pf, t->o->size,
						  &t->r.expected, &t->defect);
	if (k->types && !type_is(t, k->types)) {
		note(t, "%s: %s", t->ops->name, k->why);
		return LT_SKIP;
	}
	ret = needs_registrable(t, k);
	if (ret)
		return ret;
	ret = mem_setup(&t->m, t->ops, t->o);
	if (ret != LP_OK)
		return ret;
	t->mem_up = true;
	ret = (t->ops->populate ? t->ops->populate : mem_populate)(&t->m, t->pf);
	t->r.fs_type = t->m.fs_type;
	t->r.dax = t->m.dax;
	t->chk = t->m.len / 2 < LT_CHECK_MAX ? t->m.len / 2 : LT_CHECK_MAX;
	t->chk &= ~(size_t)4095;
	if (!ret && t->chk < 4096)
		return lp_err(LP_EUSAGE, "--lifetime %s needs --size 8K or more",
			      k->name);
	if (!ret && !k->no_target)
		ret = target_open(t);
	if (!ret)
		ret = k->run(t);
	if (ret == LT_SKIP)
		return ret;
	if (t->registered && unreg(t) && !ret)
		ret = -EIO;
	if (strcmp(k->name, "close-ring")) {
		unsigned int took;

		t->r.vmpin[2] = pin_wait(t, 2000, &took);
		if (t->r.vmpin[2] != t->r.vmpin[0]) {
			note(t, "pin leak: VmPin %ld kB -> %ld kB",
			     t->r.vmpin[0], t->r.vmpin[2]);
			ret = ret ? ret : -EIO;
		}
	}
	row_counters(t);
	return emit(t, op, ret);
}

static void lt_cleanup(struct lt *t)
{
	if (t->tfd >= 0)
		close(t->tfd);
	t->tfd = -1;
	if (t->mem_up)
		mem_teardown(&t->m);
	t->mem_up = false;
	if (t->ring_up)
		io_uring_queue_exit(&t->ring);
	t->ring_up = t->registered = false;
}

static int run_pf(struct lt *t, const struct lt_case *k)
{
	int ret = io_uring_queue_init(2 * LT_INFLIGHT, &t->ring, 0);

	if (ret)
		return ring_init_err(ret);
	t->ring_up = true;
	ret = k->own_mem ? lt_limits(t) : mem_case(t, k);
	lt_cleanup(t);
	if (ret == LT_SKIP)
		return lp_err(LP_SKIP, "--lifetime %s: %s", k->name, t->note);
	return ret;
}

int lifetime_main(const struct mem_ops *ops, const struct opts *o,
		  const struct contract *c)
{
	const struct lt_case *k = NULL;
	struct lt t = { .o = o, .c = c, .ops = ops, .tfd = -1 };
	int ret, worst = LP_OK;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(cases[i].name, o->lifetime))
			k = &cases[i];
	if (!k)
		return lp_err(LP_EUSAGE,
			      "--lifetime %s: give munmap, fork, truncate, punch, mremap, reclaim, reclaim-pinned, unreg-inflight, close-ring, update, cycles, memlock or limits",
			      o->lifetime);
	if (k->own_mem && strcmp(ops->name, "anon"))
		return lp_err(LP_SKIP, "--lifetime %s runs on anon memory only (--mem anon)",
			      k->name);
	t.want = aligned_alloc(4096, LT_CHECK_MAX);
	t.got = aligned_alloc(4096, LT_CHECK_MAX);
	if (!t.want || !t.got)
		return lp_err(LP_EUSAGE, "out of memory");
	for (t.pf = 0; t.pf < PF_NR; t.pf++) {
		if (!(o->prefaults & (1u << t.pf)))
			continue;
		ret = run_pf(&t, k);
		if (ret == LP_EUSAGE || ret == LP_SKIP) {
			worst = ret;
			break;
		}
		if (ret > worst)
			worst = ret;
	}
	free(t.want);
	free(t.got);
	return worst;
}
