/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The long-term pinners, one file each, as fio's I/O engines are:
 * io_uring (pin_io_uring.c: IORING_REGISTER_BUFFERS, with fixed-buffer
 * I/O and register/unregister cycles), gup-fast and gup (pin_gup.c: the
 * gup_test ioctls of debugfs), rdma (pin_rdma.c: ibv_reg_mr on a
 * soft-RoCE device) and vfio (pin_vfio.c: VFIO_IOMMU_MAP_DMA through
 * vfio-pci's type1 IOMMU). None is privileged: a row (row.c), a lifetime case
 * and `longpin pinners` reach each one through its struct pinner_ops,
 * and what a pinner cannot do is an operation it leaves NULL. Their
 * names are pinners.def's.
 */
#ifndef LONGPIN_PINNER_H
#define LONGPIN_PINNER_H

#include "longpin.h"

struct pin_answer {
	int result;		/* 0, -errno, -LP_REFUSED or -LP_PARTIAL */
	long pinned;		/* 4 KiB pages pinned, -1: unknown */
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
	int fd;			/* gup_test's, or -1 */
	void *priv;		/* the pinner's own state (ring; device, PD, MR) */
};

struct pinner_ops {
	/* optional: a limit the pins would pass, before anything is set up */
	int (*check)(const struct opts *o);
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
	 * @answer (--cycles; lifetime cycles); default pinner_cycles()
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
const struct pinner_info *pinner_nth(size_t i);
const struct pinner_info *pinner_find(const char *name);
void pinners_help(FILE *f, bool man);
/* "io_uring", "gup-fast/ro": the contract's name of --pinner's pin */
const char *pinner_key(char *buf, size_t n, const struct opts *o);
/* --pinner NAME for options @o, opened: LP_OK or an exit status */
int pinner_open(struct pinner *p, const struct opts *o);
void pinner_close(struct pinner *p);
int pinner_cycles(struct pinner *p, struct mem *m, unsigned int n,
		  bool probe, bool untouch, int answer,
		  struct cycles_result *cr);
/* a second pin of @m, held by @leak until pinner_leak_end() (self-tests) */
bool pinner_leak_begin(struct pinner *leak, const struct pinner *p,
		       struct mem *m);
void pinner_leak_end(struct pinner *leak);

/* pin_io_uring.c: what only io_uring's lifetime cases and torture use */
struct io_uring *io_uring_ring(struct pinner *p);
/* RLIMIT_MEMLOCK against @copies buffers of --size and a ring */
int io_uring_memlock_check(const struct opts *o, size_t copies);

/* row.c: the CSV's op of --pinner's pin ("register", "pin", "pin-ro") */
const char *row_op(const struct opts *o);
/* row.c: one row per prefault of --mem pinned by @p, judged and written */
int row_run(struct pinner *p, const struct mem_ops *ops, const struct opts *o,
	    const struct contract *c, enum prefault pf, bool header);

#endif
