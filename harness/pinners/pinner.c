// SPDX-License-Identifier: GPL-2.0
/*
 * The long-term pinners, one file and one struct pinner_ops each:
 * pin_io_uring.c (IORING_REGISTER_BUFFERS, with its fixed-buffer I/O in
 * uring_io.c and its timed cycles in uring_cycles.c), pin_gup.c (gup-fast
 * and gup, through gup_test), pin_rdma.c (ibv_reg_mr, and its loopback
 * RDMA WRITE) and pin_vfio.c (VFIO_IOMMU_MAP_DMA). Their names are
 * pinners.def's, which longpin-compare reads too. A row (register/), a
 * lifetime case and torture's threads pin through these operations
 * alone. This file is the table of pinners.def: finding one by name,
 * checking --pinner's options, opening it for the options of a run, and
 * what a pinner without an operation of its own gets: cycles of pin()
 * and unpin(), and a second pin for the self-tests that leak one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "longpin.h"
#include "pinner.h"

static const struct pinner_info pinners[] = {
#define LP_PINNER(id, name, ops, help) { name, help, &ops },
#include "pinners.def"
#undef LP_PINNER
};

/* The @i-th pinner of pinners.def, or NULL past the last. */
const struct pinner_info *lp_pinner_nth(size_t i)
{
	return i < ARRAY_SIZE(pinners) ? &pinners[i] : NULL;
}

const struct pinner_info *lp_pinner_find(const char *name)
{
	return TABLE_FIND(pinners, name, name);
}

void lp_pinners_help(FILE *f, bool man)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pinners); i++)
		lp_item_help(f, man, pinners[i].name, pinners[i].help);
}

/* "gup-fast", or "gup-fast/ro": the contract's name of a pin */
const char *lp_pinner_key(char *buf, size_t n, const struct opts *o)
{
	snprintf(buf, n, "%s%s", o->pinner, o->readonly_pin ? "/ro" : "");
	return buf;
}

/* "gup-fast, gup, rdma or vfio": the pinners with a read-only pin */
static const char *readonly_pinners(char *buf, size_t len)
{
	size_t i, k = 0, n = 0;

	for (i = 0; i < ARRAY_SIZE(pinners); i++)
		n += pinners[i].ops->readonly;
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(pinners); i++)
		if (pinners[i].ops->readonly)
			lp_list_add(buf, len, k++, n, pinners[i].name);
	return buf;
}

int lp_pinner_check(const struct opts *o)
{
	char list[160] = "";
	size_t i;

	if (!lp_pinner_find(o->pinner)) {
		for (i = 0; i < ARRAY_SIZE(pinners); i++)
			lp_list_add(list, sizeof(list), i, ARRAY_SIZE(pinners),
				 pinners[i].name);
		return lp_err(LP_EUSAGE, "--pinner %s: give %s (longpin pinners)",
			      o->pinner, list);
	}
	if (!o->readonly_pin || lp_pinner_find(o->pinner)->ops->readonly)
		return LP_OK;
	return lp_err(LP_EUSAGE,
		      "--readonly-pin belongs to --pinner %s (%s pins for writing): give --pinner too",
		      readonly_pinners(list, sizeof(list)), o->pinner);
}

/* p->entries and p->nowarn are the caller's, the rest the options' */
int lp_pinner_open(struct pinner *p, const struct opts *o)
{
	const struct pinner_info *info = lp_pinner_find(o->pinner);

	*p = (struct pinner){ .info = info, .ops = info->ops, .o = o,
			      .write = !o->readonly_pin, .fd = -1,
			      .entries = p->entries, .nowarn = p->nowarn };
	return p->ops->open(p);
}

void lp_pinner_close(struct pinner *p)
{
	if (p->ops)
		p->ops->close(p);
	p->ops = NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * @n pin/unpin cycles of @m, each expected to answer @answer, into @cr:
 * ns per 4 KiB page of each pin() (min, median, max) and the first cycle
 * that answered otherwise or kept its pin. A pinner's own cycles()
 * (io_uring's, with the mmap prober) takes its place.
 */
int lp_pinner_cycles(struct pinner *p, struct mem *m, unsigned int n,
		  bool probe, bool untouch, int answer,
		  struct cycles_result *cr)
{
	struct pin_answer a;
	double *ns;
	unsigned int i;

	if (p->ops->cycles)
		return p->ops->cycles(p, m, n, probe, untouch, answer, cr);
	ns = calloc(n ? n : 1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	memset(cr, 0, sizeof(*cr));
	for (i = 0; i < n; i++) {
		a = (struct pin_answer){ .pinned = -1 };
		p->ops->pin(p, m, &a);
		ns[i] = a.pin_ns;
		if (a.held && p->ops->unpin)
			p->ops->unpin(p, m, &a);
		if ((a.result != answer || a.held) && !cr->failed_at) {
			cr->failed_at = i + 1;
			cr->failed_result = a.held ? -EBUSY : a.result;
		}
	}
	qsort(ns, n, sizeof(*ns), cmp_dbl);
	cr->n = n;
	cr->reg_min = ns[0];
	cr->reg_med = ns[n / 2];
	cr->reg_max = ns[n - 1];
	free(ns);
	return 0;
}

/*
 * --inject leak, LONGPIN_TEST_FAULT=pin-leak: a second instance of the
 * pinner pins @m too and holds it past the leak check. Returns true when
 * it holds a pin.
 */
bool lp_pinner_leak_begin(struct pinner *leak, const struct pinner *p,
		       struct mem *m)
{
	struct pin_answer a = { .pinned = -1 };

	*leak = (struct pinner){ .info = p->info, .ops = p->ops, .o = p->o,
				 .write = p->write, .fd = -1, .entries = 4 };
	if (!p->ops->unpin || leak->ops->open(leak) != LP_OK) {
		leak->ops = NULL;
		return false;
	}
	leak->ops->pin(leak, m, &a);
	if (!a.held)
		lp_pinner_close(leak);
	return a.held;
}

void lp_pinner_leak_end(struct pinner *leak)
{
	lp_pinner_close(leak);
}
