/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The long-term pinners, one file each, as fio's I/O engines are:
 * io_uring (pin_io_uring.c: IORING_REGISTER_BUFFERS, with fixed-buffer
 * I/O and register/unregister cycles), gup-fast and gup (pin_gup.c: the
 * gup_test ioctls of debugfs), rdma (pin_rdma.c: ibv_reg_mr on a
 * soft-RoCE device) and vfio (pin_vfio.c: VFIO_IOMMU_MAP_DMA through
 * vfio-pci's type1 IOMMU). None is privileged: a row (register/), a
 * lifetime case, torture's threads and `longpin pinners` reach each one
 * through its struct pinner_ops alone, and what a pinner cannot do is an
 * operation it leaves NULL. Their names are pinners.def's.
 */
#ifndef LONGPIN_PINNER_H
#define LONGPIN_PINNER_H

#include <sys/uio.h>

#include "longpin.h"
#include "mem.h"

struct pin_answer {
	int result;		/* 0, -errno, -LP_REFUSED or -LP_PARTIAL */
	long pinned;		/* 4 KiB pages pinned, -1: unknown */
	/*
	 * 4 KiB pages pin() asked the kernel to pin, counting every call
	 * (gup_test's two ioctls over the buffer); 0: the buffer's once
	 */
	long tried;
	double pin_ns;		/* per 4 KiB page; NaN: not measured */
	double unpin_ns;
	bool held;		/* pin() left the pin held until unpin() */
	int unpin_result;	/* what unpin() answered: 0 or -errno */
	char note[96];		/* a fact about the figures, or "" */
};

struct pinner {
	const struct pinner_info *info;
	const struct pinner_ops *ops;
	const struct opts *o;
	bool write;		/* a pin the device may write (not --readonly-pin) */
	unsigned int entries;	/* io_uring: ring entries; 0: from the options */
	/*
	 * open() answers -errno without a message (a torture thread's, whose
	 * row notes it); else LP_SKIP or LP_EUSAGE after a one-line error
	 */
	bool nowarn;
	int fd;			/* gup_test's, or -1 */
	void *priv;		/* the pinner's own state (ring; device, PD, MR) */
};

struct pinner_ops {
	/*
	 * optional: a limit that @copies pins of --size would pass, before
	 * anything is set up
	 */
	int (*check)(const struct opts *o, unsigned int copies);
	/* LP_OK, or LP_SKIP / LP_EUSAGE after a one-line error */
	int (*open)(struct pinner *p);
	/* pin @m long-term: a->result; a->held when the pin stays */
	int (*pin)(struct pinner *p, struct mem *m, struct pin_answer *a);
	/*
	 * drop what pin() holds (a->held), time it in a->unpin_ns; 0 or
	 * the -errno it answered. NULL: pin() unpins itself (gup_test), so
	 * there is no unpin to test.
	 */
	int (*unpin)(struct pinner *p, struct mem *m, struct pin_answer *a);
	void (*close)(struct pinner *p);
	/* optional: fixed-buffer I/O on the pinned buffer, its data check */
	int (*io)(struct pinner *p, struct mem *m, struct io_result *r);
	/*
	 * optional: @n more pin/unpin cycles, each expected to answer
	 * @answer (--cycles; lifetime cycles); default lp_pinner_cycles()
	 */
	int (*cycles)(struct pinner *p, struct mem *m, unsigned int n,
		      bool probe, bool untouch, int answer,
		      struct cycles_result *cr);
	/*
	 * optional: the device writes the pinned buffer, @chunk bytes of
	 * @pat at a time (which @src_fd also holds at offset 0): 0, -errno
	 * (a failure) or LP_SKIP (it cannot here), @note says why.
	 */
	int (*dev_write)(struct pinner *p, struct mem *m, const void *pat,
			 size_t chunk, int src_fd, char *note, size_t n);
	/*
	 * optional: the device reads @len bytes at @off of @fd into @buf, a
	 * part of the pinned buffer (@write: writes them from it there),
	 * waited for: 0, -errno, or -EIO when short (io_uring's READ_FIXED
	 * and WRITE_FIXED)
	 */
	int (*fixed_io)(struct pinner *p, bool write, int fd, void *buf,
			size_t len, off_t off);
	/*
	 * optional: @n such reads of @bs bytes, the i-th at i * @bs of @fd
	 * into @buf + i * @bs, started and not waited for: how many were,
	 * or -errno. io_ready() tells how many completed so far; io_reap()
	 * waits @ms at most for the next: 0 with its answer in *res (bytes
	 * or -errno), or -errno (-ETIME: none came).
	 */
	int (*io_start)(struct pinner *p, int fd, void *buf, unsigned int bs,
			unsigned int n);
	unsigned int (*io_ready)(struct pinner *p);
	int (*io_reap)(struct pinner *p, unsigned int ms, int *res);
	/*
	 * optional: a table of @n buffers pinned in one call (@iov NULL: @n
	 * empty slots), held until table_unpin(); table_update() pins @iov
	 * in slot @slot in place of what it held. Each answers 0 or -errno
	 * (io_uring's buffer table: its limits, sparse tables and updates).
	 */
	int (*table_pin)(struct pinner *p, const struct iovec *iov,
			 unsigned int n);
	int (*table_update)(struct pinner *p, unsigned int slot,
			    const struct iovec *iov);
	int (*table_unpin)(struct pinner *p);
	const char *op;		/* the CSV's op of its pin; NULL: pin, pin-ro */
	const char *pin_call;	/* in notes: "registration", "ibv_reg_mr" */
	const char *cycle_call;	/* in notes: what a cycle calls, or NULL */
	const char *dev_writer;	/* in notes: what dev_write() writes with */
	bool readonly;		/* can pin for reading only (--readonly-pin) */
};

/* An entry of pinners.def: the name a pinner is known by, and its ops. */
struct pinner_info {
	const char *name;
	const char *help;
	const struct pinner_ops *ops;
};

#define LP_PINNER(id, name, ops, help) extern const struct pinner_ops ops;
#include "pinners.def"
#undef LP_PINNER

/* pinner.c: the pinners of pinners.def */
const struct pinner_info *lp_pinner_nth(size_t i);
const struct pinner_info *lp_pinner_find(const char *name);
void lp_pinners_help(FILE *f, bool man);
/* "io_uring", "gup-fast/ro": the contract's name of --pinner's pin */
const char *lp_pinner_key(char *buf, size_t n, const struct opts *o);
/* --pinner NAME is a pinner, and --readonly-pin one it has: LP_OK or 2 */
int lp_pinner_check(const struct opts *o);
/* --pinner NAME for options @o, opened: LP_OK or an exit status */
int lp_pinner_open(struct pinner *p, const struct opts *o);
void lp_pinner_close(struct pinner *p);
int lp_pinner_cycles(struct pinner *p, struct mem *m, unsigned int n,
		  bool probe, bool untouch, int answer,
		  struct cycles_result *cr);
/* a second pin of @m, held by @leak until lp_pinner_leak_end() (self-tests) */
bool lp_pinner_leak_begin(struct pinner *leak, const struct pinner *p,
		       struct mem *m);
void lp_pinner_leak_end(struct pinner *leak);

#endif
