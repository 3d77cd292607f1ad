/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the io_uring pinner's files share: its fixed-buffer I/O
 * (uring_io.c) and its timed cycles beside the mmap prober
 * (uring_cycles.c), which pin_io_uring.c makes its operations. Nothing
 * outside pinners/ reaches a ring but through struct pinner_ops; the
 * unit test of the prober's arithmetic includes this header too.
 */
#ifndef LONGPIN_URING_H
#define LONGPIN_URING_H

#include "pinner.h"

struct io_uring;

/* uring_io.c: a data check, then READ_FIXED against plain READ */
int lp_io_run(struct io_uring *ring, struct mem *m, const struct opts *o,
	   struct io_result *r);

/* uring_cycles.c: --cycles N [--mmap-probe] */
int lp_cycles_run(struct io_uring *ring, struct mem *m, unsigned int n,
	       bool probe, bool untouch, int first, struct cycles_result *cr);
/* one call of --mmap-probe's prober */
struct probe_call {
	uint64_t start;			/* lp_now_ns() */
	uint32_t ns;			/* duration (capped) */
};
size_t lp_probe_in_windows(const struct probe_call *call, size_t ncall,
			const uint64_t *win, unsigned int n, uint32_t *ns);
void lp_probe_window_max(const struct probe_call *call, size_t ncall,
		      const uint64_t *win, unsigned int n, uint32_t *wmax);

#endif
