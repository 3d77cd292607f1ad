// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring pinner: the buffer registered as a fixed buffer
 * (IORING_REGISTER_BUFFERS, a long-term FOLL_WRITE pin) on a ring of its
 * own, unregistered to unpin. What only it can do besides: fixed-buffer
 * I/O on the registered buffer with its data check (io.c), timed
 * register/unregister cycles beside an mmap prober (cycles.c), and
 * READ_FIXED as the device's write for the lifetime cases. Its pins are
 * charged to RLIMIT_MEMLOCK, checked before anything is set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "longpin.h"
#include "pinner.h"

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
int io_uring_memlock_check(const struct opts *o, size_t copies)
{
	size_t need_kb, ring_kb, fit_kb, other_kb;
	struct rlimit rl;
	char fit[48];
	long pinned;

	if (have_cap_ipc_lock() || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return LP_OK;
	pinned = vmpin_kb();
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

static int uring_check(const struct opts *o)
{
	bool leak = o->inject && !strcmp(o->inject, "leak");

	return o->no_memlock_check ? LP_OK :
	       io_uring_memlock_check(o, leak ? 2 : 1);
}

struct io_uring *io_uring_ring(struct pinner *p)
{
	return p->priv;
}

static int uring_open(struct pinner *p)
{
	unsigned int n = p->entries ? p->entries : ring_entries(p->o);
	int ret;

	p->priv = calloc(1, sizeof(struct io_uring));
	if (!p->priv)
		return lp_err(LP_EUSAGE, "out of memory");
	ret = io_uring_queue_init(n, p->priv, 0);
	if (!ret)
		return LP_OK;
	free(p->priv);
	p->priv = NULL;
	return ring_init_err(ret);
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
	uint64_t t0 = now_ns();

	a->result = io_uring_register_buffers(p->priv, &iov, 1);
	a->pin_ns = (now_ns() - t0) / (m->len / 4096.0);
	a->held = !a->result;
	a->pinned = a->held ? (long)(m->len / 4096) : 0;
	return LP_OK;
}

static int uring_unpin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	uint64_t t0 = now_ns();
	int ret = io_uring_unregister_buffers(p->priv);

	a->unpin_ns = (now_ns() - t0) / (m->len / 4096.0);
	a->held = false;
	return ret;
}

static int uring_io(struct pinner *p, struct mem *m, struct io_result *r)
{
	return io_run(p->priv, m, p->o, r);
}

static int uring_cycles(struct pinner *p, struct mem *m, unsigned int n,
			bool probe, bool untouch, int answer,
			struct cycles_result *cr)
{
	return cycles_run(p->priv, m, n, probe, untouch, answer, cr);
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
				 len, off, errno_name(ret));
		return -EIO;
	}
	return 0;
}

const struct pinner_ops pin_io_uring_ops = {
	.check = uring_check,
	.open = uring_open,
	.pin = uring_pin,
	.unpin = uring_unpin,
	.close = uring_close,
	.io = uring_io,
	.cycles = uring_cycles,
	.dev_write = uring_dev_write,
	.op = "register",
	.pin_call = "registration",
	.dev_writer = "READ_FIXED",
};
