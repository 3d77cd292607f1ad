// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring pinner: the buffer registered as a fixed buffer
 * (IORING_REGISTER_BUFFERS, a long-term FOLL_WRITE pin) on a ring of its
 * own, unregistered to unpin. What only it can do besides, each an
 * operation of its struct pinner_ops: fixed-buffer I/O on the registered
 * buffer with its data check (uring_io.c), timed register/unregister
 * cycles beside an mmap prober (uring_cycles.c), READ_FIXED as the
 * device's write, single fixed reads and writes, reads left in flight,
 * and its buffer table (many buffers at once, sparse tables, slot
 * updates): what the lifetime cases and torture's threads ask of it. Its
 * pins are charged to RLIMIT_MEMLOCK, checked before anything is set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uring.h"

/*
 * Why io_uring_queue_init() failed with @ret, as a one-line error naming
 * the fix.
 */
static int ring_init_err(int ret)
{
	FILE *f;
	int dis = -1;

	if (ret == -ENOSYS)
		return lp_err(LP_SKIP,
			      "this kernel has no io_uring (CONFIG_IO_URING=n): use a kernel with it");
	f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
	if (f) {
		if (fscanf(f, "%d", &dis) != 1)
			dis = -1;
		fclose(f);
	}
	if (ret == -EPERM && dis > 0)
		return lp_err(LP_EUSAGE,
			      "io_uring is disabled (kernel.io_uring_disabled=%d): run `sysctl -w kernel.io_uring_disabled=0` as root",
			      dis);
	return lp_err(LP_EUSAGE, "io_uring_queue_init: %s", strerror(-ret));
}

/* One fixed read or write of @len at @off, waited for: its res. */
static int fixed_io_res(struct io_uring *ring, bool write, int fd, void *buf,
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
	return ret;
}

/* One fixed read or write of @len at @off, waited for: 0, or -EIO if short. */
static int uring_fixed_io(struct pinner *p, bool write, int fd, void *buf,
			  size_t len, off_t off)
{
	int ret = fixed_io_res(p->priv, write, fd, buf, len, off, 0);

	return ret == (int)len ? 0 : ret < 0 ? ret : -EIO;
}

static unsigned int ring_entries(const struct opts *o)
{
	return o->qd < 16 ? 32 : 2 * o->qd;
}

static size_t pages_kb(size_t bytes)
{
	size_t pg = sysconf(_SC_PAGESIZE);

	return (bytes + pg - 1) / pg * pg / KiB;
}

/*
 * kB the kernel charges to RLIMIT_MEMLOCK for a ring like ours, besides
 * the buffer. 6.18 charges the rings and SQEs (16 kB for 128 entries),
 * 6.1 does not: a child with a limit of 0 tries to set one up, and if
 * that fails with -ENOMEM the size is the rings' (a CQE array of twice
 * the entries, the SQ index array and a header of at most 256 bytes) plus
 * the SQEs', each rounded up to pages.
 */
static size_t ring_charge_kb(const struct opts *o)
{
	unsigned int n = ring_entries(o);
	struct io_uring ring;
	struct rlimit rl;
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
			rl.rlim_cur = 0;
			setrlimit(RLIMIT_MEMLOCK, &rl);
		}
		_exit(io_uring_queue_init(n, &ring, 0) == -ENOMEM);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 1)
		return 0;
	return pages_kb(256 + 2 * n * 16 + n * 4) + pages_kb(n * 64);
}

/*
 * Without CAP_IPC_LOCK a ring's pins are charged to RLIMIT_MEMLOCK: do
 * @copies buffers of --size and a ring fit? (--inject leak holds a second
 * pin, torture two rings pin it.)
 */
static int memlock_check(const struct opts *o, size_t copies)
{
	size_t need_kb, ring_kb, fit_kb, other_kb;
	struct rlimit rl;
	char fit[48];
	long pinned;

	if (lp_have_cap_ipc_lock() || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return LP_OK;
	pinned = lp_vmpin_kb();
	ring_kb = ring_charge_kb(o);
	other_kb = ring_kb + (pinned > 0 ? pinned : 0);
	need_kb = o->size / KiB * copies + other_kb;
	if (rl.rlim_cur / KiB >= need_kb)
		return LP_OK;
	/* the largest --size that fits, for those who cannot raise it */
	fit_kb = rl.rlim_cur / KiB > other_kb ?
		 (rl.rlim_cur / KiB - other_kb) / copies : 0;
	if (fit_kb >= 1024)
		snprintf(fit, sizeof(fit), "--size %zuM or less", fit_kb / 1024);
	else
		snprintf(fit, sizeof(fit), "--size %zuK or less", fit_kb / 4 * 4);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max / KiB < need_kb)
		return lp_err(LP_EUSAGE,
			      "RLIMIT_MEMLOCK is %llu kB (hard limit %llu kB), registering %zu kB needs at least %zu kB (the buffer and %zu kB for the ring): give %s, or have root raise memlock in /etc/security/limits.conf",
			      (unsigned long long)rl.rlim_cur / KiB,
			      (unsigned long long)rl.rlim_max / KiB, o->size / KiB,
			      need_kb, ring_kb, fit);
	return lp_err(LP_EUSAGE,
		      "RLIMIT_MEMLOCK is %llu kB, registering %zu kB needs at least %zu kB (the buffer and %zu kB for the ring): run `ulimit -l %zu` (or unlimited) first, or give %s",
		      (unsigned long long)rl.rlim_cur / KiB, o->size / KiB,
		      need_kb, ring_kb, need_kb, fit);
}

static int uring_check(const struct opts *o, unsigned int copies)
{
	return o->no_memlock_check ? LP_OK : memlock_check(o, copies);
}

/*
 * The ring as an application without CAP_IPC_LOCK has it. The kernel
 * charges such a ring's registered buffers to the process (VmPin,
 * pinned_vm) and its user (locked_vm, against RLIMIT_MEMLOCK), and a
 * row's leak check reads VmPin; 6.12 charged VmPin whatever the ring's
 * creator, 7.2 charges nothing to a ring made with the capability
 * (io_buffer_account_pin() returns early without ctx->user), so a pin
 * left there would not show. A thread that has the capability makes its
 * ring with it dropped from its effective set, RLIMIT_MEMLOCK raised to
 * unlimited first (a limit that never held for it), and takes it back
 * after; where either cannot be done, the ring is made as before.
 */
static int ring_init(unsigned int n, struct io_uring *ring)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	const struct rlimit inf = { RLIM_INFINITY, RLIM_INFINITY };
	const __u32 bit = 1u << CAP_IPC_LOCK;
	bool drop;
	int ret;

	drop = !syscall(SYS_capget, &h, d) && (d[0].effective & bit) &&
	       !setrlimit(RLIMIT_MEMLOCK, &inf);
	if (drop) {
		d[0].effective &= ~bit;
		drop = !syscall(SYS_capset, &h, d);
	}
	ret = io_uring_queue_init(n, ring, 0);
	if (drop) {
		d[0].effective |= bit;
		syscall(SYS_capset, &h, d);
	}
	return ret;
}

static int uring_open(struct pinner *p)
{
	unsigned int n = p->entries ? p->entries : ring_entries(p->o);
	int ret;

	p->priv = calloc(1, sizeof(struct io_uring));
	if (!p->priv)
		return p->nowarn ? -ENOMEM : lp_err(LP_EUSAGE, "out of memory");
	ret = ring_init(n, p->priv);
	if (!ret)
		return LP_OK;
	free(p->priv);
	p->priv = NULL;
	return p->nowarn ? ret : ring_init_err(ret);
}

/* Exiting the ring unregisters what it holds (the lifetime's close-ring). */
static void uring_close(struct pinner *p)
{
	if (!p->priv)
		return;
	io_uring_queue_exit(p->priv);
	free(p->priv);
	p->priv = NULL;
}

static int uring_pin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	struct iovec iov = { .iov_base = m->addr, .iov_len = m->len };
	uint64_t t0 = lp_now_ns();

	a->result = io_uring_register_buffers(p->priv, &iov, 1);
	a->pin_ns = (lp_now_ns() - t0) / (m->len / 4096.0);
	a->held = !a->result;
	a->pinned = a->held ? (long)(m->len / 4096) : 0;
	return LP_OK;
}

static int uring_unpin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	uint64_t t0 = lp_now_ns();
	int ret = io_uring_unregister_buffers(p->priv);

	a->unpin_ns = (lp_now_ns() - t0) / (m->len / 4096.0);
	a->held = false;
	return ret;
}

static int uring_io(struct pinner *p, struct mem *m, struct io_result *r)
{
	return lp_io_run(p->priv, m, p->o, r);
}

static int uring_cycles(struct pinner *p, struct mem *m, unsigned int n,
			bool probe, bool untouch, int answer,
			struct cycles_result *cr)
{
	return lp_cycles_run(p->priv, m, n, probe, untouch, answer, cr);
}

/*
 * READ_FIXED the pattern at offset 0 of @src_fd into the whole
 * registered buffer, @chunk bytes at a time: how many bytes a short
 * completion moved, or its errno, in @note.
 */
static int uring_dev_write(struct pinner *p, struct mem *m, const void *pat,
			   size_t chunk, int src_fd, char *note, size_t n)
{
	char *buf = m->addr;
	size_t off, len;
	int ret;

	(void)pat;
	for (off = 0; off < m->len; off += len) {
		len = m->len - off < chunk ? m->len - off : chunk;
		ret = fixed_io_res(p->priv, false, src_fd, buf + off, len, 0, 0);
		if (ret == (int)len)
			continue;
		if (ret >= 0)
			snprintf(note, n, "READ_FIXED of %zu bytes at buffer offset %zu: short, %d bytes",
				 len, off, ret);
		else
			snprintf(note, n, "READ_FIXED of %zu bytes at buffer offset %zu: %s",
				 len, off, lp_errno_name(ret));
		return -EIO;
	}
	return 0;
}

/* Start @n fixed reads of @bs bytes, the i-th at i * @bs: how many were. */
static int uring_io_start(struct pinner *p, int fd, void *buf,
			  unsigned int bs, unsigned int n)
{
	struct io_uring_sqe *sqe;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sqe = io_uring_get_sqe(p->priv);
		if (!sqe)
			break;
		io_uring_prep_read_fixed(sqe, fd, (char *)buf + (size_t)i * bs,
					 bs, (off_t)i * bs, 0);
	}
	return io_uring_submit(p->priv);
}

static unsigned int uring_io_ready(struct pinner *p)
{
	return io_uring_cq_ready(p->priv);
}

static int uring_io_reap(struct pinner *p, unsigned int ms, int *res)
{
	struct __kernel_timespec ts = { .tv_sec = ms / 1000,
					.tv_nsec = ms % 1000 * 1000000L };
	struct io_uring_cqe *cqe;
	int err = io_uring_wait_cqe_timeout(p->priv, &cqe, &ts);

	if (err)
		return err;
	*res = cqe->res;
	io_uring_cqe_seen(p->priv, cqe);
	return 0;
}

static int uring_table_pin(struct pinner *p, const struct iovec *iov,
			   unsigned int n)
{
	if (!iov)
		return io_uring_register_buffers_sparse(p->priv, n);
	return io_uring_register_buffers(p->priv, iov, n);
}

static int uring_table_update(struct pinner *p, unsigned int slot,
			      const struct iovec *iov)
{
	__u64 tag = 0;
	int ret = io_uring_register_buffers_update_tag(p->priv, slot, iov,
						      &tag, 1);

	return ret == 1 ? 0 : ret < 0 ? ret : -EIO;
}

static int uring_table_unpin(struct pinner *p)
{
	return io_uring_unregister_buffers(p->priv);
}

const struct pinner_ops lp_pin_io_uring_ops = {
	.check = uring_check,
	.open = uring_open,
	.pin = uring_pin,
	.unpin = uring_unpin,
	.close = uring_close,
	.io = uring_io,
	.cycles = uring_cycles,
	.dev_write = uring_dev_write,
	.fixed_io = uring_fixed_io,
	.io_start = uring_io_start,
	.io_ready = uring_io_ready,
	.io_reap = uring_io_reap,
	.table_pin = uring_table_pin,
	.table_update = uring_table_update,
	.table_unpin = uring_table_unpin,
	.op = "register",
	.pin_call = "registration",
	.dev_writer = "READ_FIXED",
};
