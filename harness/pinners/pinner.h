/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The long-term pinners behind --pinner, one file each (as fio's engines):
 * io_uring (main.c's registration, the default), gup-fast and gup
 * (pin_gup.c: the gup_test ioctls of debugfs) and rdma (pin_rdma.c:
 * ibv_reg_mr on a soft-RoCE device). pinner.c runs one of the others on
 * one buffer and writes its row.
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
	char note[96];		/* a fact about the figures, or "" */
};

struct pinner {
	const struct pinner_ops *ops;
	bool write;		/* a pin the device may write (not --readonly-pin) */
	int fd;			/* gup_test's, or -1 */
	void *priv;		/* the pinner's own state (rdma: device, PD, MR) */
};

struct pinner_ops {
	const char *name;	/* --pinner NAME */
	/* LP_OK, or LP_SKIP / LP_EUSAGE after a one-line error */
	int (*open)(struct pinner *p, const struct opts *o);
	/* pin @m long-term: a->result; a->held when the pin stays */
	int (*pin)(struct pinner *p, struct mem *m, struct pin_answer *a);
	/* drop what pin() holds (a->held), time it in a->unpin_ns */
	void (*unpin)(struct pinner *p, struct mem *m, struct pin_answer *a);
	void (*close)(struct pinner *p);
};

extern const struct pinner_ops pin_gup_fast_ops;
extern const struct pinner_ops pin_gup_ops;
extern const struct pinner_ops pin_rdma_ops;

/* pin_rdma.c: the device behind --pinner rdma, for lt_rdma.c's loopback */
struct ibv_context;
struct ibv_pd;
struct ibv_mr;
struct ibv_context *rdma_ctx(const struct pinner *p);
struct ibv_pd *rdma_pd(const struct pinner *p);
struct ibv_mr *rdma_mr(const struct pinner *p);	/* NULL: not pinned */

/* lt_rdma.c: --lifetime cycles and reclaim with --pinner rdma */
int pinner_lifetime_main(const struct mem_ops *mops, const struct opts *o,
			 const struct contract *c);

/* pinner.c: NULL for io_uring (main.c's own path) and unknown names */
const struct pinner_ops *pinner_find(const char *name);
/* pinner_names.c: the names --pinner takes, and their help */
bool pinner_known(const char *name);
void pinner_list_help(FILE *f);
/* the contract's name of --pinner's pin ("gup/ro"), NULL for io_uring */
const char *pinner_key(char *buf, size_t n, const struct opts *o);
int pinner_main(const struct pinner_ops *ops, const struct mem_ops *mops,
		const struct opts *o, const struct contract *c);

#endif
