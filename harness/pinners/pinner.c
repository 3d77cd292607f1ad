// SPDX-License-Identifier: GPL-2.0
/*
 * --pinner NAME: one buffer per prefault pinned long-term by another
 * pinner than io_uring (pinner.h), judged against the contract's
 * "pinner NAME" rows, one CSV row each: the same columns as io_uring's
 * rows, op "pin" (or "pin-ro" with --readonly-pin), no I/O.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "longpin.h"
#include "mem_ops.h"
#include "pinner.h"

static const struct pinner_ops *const pinners[] = {
	&pin_gup_fast_ops, &pin_gup_ops, &pin_rdma_ops,
};

/* The ops of --pinner @name; NULL for io_uring (main.c's own path). */
const struct pinner_ops *pinner_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pinners); i++)
		if (!strcmp(pinners[i]->name, name))
			return pinners[i];
	return NULL;
}

/* "gup-fast", or "gup-fast/ro": the contract's name of a pin; NULL: io_uring */
const char *pinner_key(char *buf, size_t n, const struct opts *o)
{
	if (!o->pinner)
		return NULL;
	snprintf(buf, n, "%s%s", o->pinner, o->readonly_pin ? "/ro" : "");
	return buf;
}

/*
 * Pin, read the counters, unpin: the row's figures. Releases are counted
 * from before the pin: gup_test drops its pin inside pin(), and the
 * kernel may pin and drop pages inside one call too (6.12's read-only
 * long-term pins of read-prefaulted memory through ibv_reg_mr: 2048
 * acquired and 2048 released for 1024 pages, half of each in pin()).
 */
static void pin_measure(struct pinner *p, struct mem *m, struct row *r,
			struct pin_answer *a)
{
	struct probe pr[4];

	pages_take(r, m, 0);
	probe_take(&pr[0]);
	p->ops->pin(p, m, a);
	probe_take(&pr[1]);
	pages_take(r, m, 1);
	pr[2] = pr[0];
	if (a->held)
		p->ops->unpin(p, m, a);
	probe_take(&pr[3]);
	fill_counters(r, pr);
	r->result = a->result;
	r->reg_ns = a->pin_ns;
	r->unreg_ns = a->unpin_ns;
}

/*
 * Every pin taken was dropped: the system's nr_foll_pin counters balance
 * over the row (unless --concurrent: other pinners run). VmPin is checked
 * by row_checks() (gup_test does not charge it, RDMA does).
 */
static bool pins_balance(const struct row *r, const struct opts *o,
			 char *note, size_t n)
{
	if (o->concurrent || r->pin_acq < 0 || r->pin_acq == r->pin_rel)
		return false;
	return add_note(note, n, "pin leak: nr_foll_pin acquired %ld, released %ld",
			r->pin_acq, r->pin_rel);
}

/*
 * A pin that got fewer pages than the contract says may be a file system
 * too full to back them (GUP cannot fault them in): write every page
 * ourselves, a SIGBUS is the environment's (exit 77), not a verdict.
 */
static int env_cause(struct mem *m, const struct row *r)
{
	if (!r->have_expected || r->result == r->expected || m->fd < 0 ||
	    (m->ops->flags & MEM_RDONLY))
		return LP_OK;
	if (r->result != -EFAULT && r->result != -LP_REFUSED &&
	    r->result != -LP_PARTIAL)
		return LP_OK;
	return mem_touch(m, PF_WRITE);
}

static int pin_one(struct pinner *p, const struct mem_ops *ops,
		   const struct opts *o, const struct contract *c,
		   enum prefault pf, bool header)
{
	struct pin_answer a = { .pinned = -1, .pin_ns = NAN, .unpin_ns = NAN };
	struct row r = { .kernel = kernel_release(), .contract = contract_name(c),
			 .mem = ops->name, .pf = pf, .size = o->size,
			 .op = p->write ? "pin" : "pin-ro",
			 .pinner = p->ops->name };
	char note[256] = "", key[32];
	bool failed;
	struct mem m;
	int ret;

	ret = mem_setup(&m, ops, o);
	if (ret != LP_OK)
		return ret;
	ret = (ops->populate ? ops->populate : mem_populate)(&m, pf);
	if (ret)
		goto out;
	r.fs_type = m.fs_type;
	r.dax = m.dax;
	pin_measure(p, &m, &r, &a);
	r.have_expected = contract_lookup_pinner(c, pinner_key(key, sizeof(key), o),
						 r.mem, r.pf, r.size,
						 &r.expected, &r.nofault);
	ret = env_cause(&m, &r);
	if (ret != LP_OK)
		goto out;
	failed = row_checks(&r, note, sizeof(note));
	failed |= pins_balance(&r, o, note, sizeof(note));
	if (a.note[0])
		add_note(note, sizeof(note), "%s", a.note);
	ret = row_judge(&r, failed, DEFECT_NONE, note);
	ret = row_write(&r, o, header, ret);
out:
	mem_teardown(&m);
	return ret;
}

int pinner_main(const struct pinner_ops *ops, const struct mem_ops *mops,
		const struct opts *o, const struct contract *c)
{
	struct pinner p = { .ops = ops, .write = !o->readonly_pin, .fd = -1 };
	int ret, worst = LP_OK, pf;
	bool header = true;

	ret = ops->open(&p, o);
	if (ret != LP_OK)
		return ret;
	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o->prefaults & (1u << pf)))
			continue;
		ret = pin_one(&p, mops, o, c, pf, header);
		header = false;
		if (ret == LP_EUSAGE || ret == LP_SKIP)
			break;
		if (ret > worst)
			worst = ret;
	}
	ops->close(&p);
	return ret == LP_EUSAGE || ret == LP_SKIP ? ret : worst;
}
