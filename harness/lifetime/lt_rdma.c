// SPDX-License-Identifier: GPL-2.0
/*
 * --lifetime cycles and reclaim with --pinner rdma: the two cases whose
 * unpin the harness holds (ibv_dereg_mr). One row per prefault, pinner
 * "rdma", op "lifetime-CASE", judged against the contract's "pinner rdma
 * lifetime CASE" rows (cycles: the registration's "pinner rdma" answer).
 *
 * cycles: N ibv_reg_mr/ibv_dereg_mr cycles on one buffer, each answering
 * what the first did, VmPin and nr_foll_pin balanced at the end.
 *
 * reclaim: the device, not the CPU, writes the buffer: an RDMA WRITE over
 * a loopback RC queue pair pair of the same device (rxe loops it back)
 * from a source MR into the MR under test; then ibv_dereg_mr, whose
 * ib_umem_release() dirties the pages of a writable MR, then reclaim as
 * for io_uring's reclaim case, then the CPU reads the buffer back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lifetime.h"
#include "mem_ops.h"
#include "pinner.h"

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The answer every cycle must give: the contract's, else the first one's. */
static int cycles_answer(struct lt *t, struct pinner *p)
{
	struct pin_answer a = { 0 };
	bool nofault;

	t->r.have_expected = contract_lookup_pinner(t->c, "rdma", t->ops->name,
						    t->pf, t->m.len,
						    &t->r.expected, &nofault);
	if (t->r.have_expected)
		return t->r.expected;
	t->unchecked = true;
	p->ops->pin(p, &t->m, &a);
	if (a.held)
		p->ops->unpin(p, &t->m, &a);
	return a.result;
}

/* @n cycles into @ns (ns per 4 KiB page of each ibv_reg_mr). */
static void cycles_loop(struct lt *t, struct pinner *p, unsigned int n,
			int answer, double *ns)
{
	struct cycles_result *cr = &t->r.cyc;
	struct pin_answer a;
	unsigned int i;

	for (i = 0; i < n; i++) {
		a = (struct pin_answer){ .pinned = -1 };
		p->ops->pin(p, &t->m, &a);
		ns[i] = a.pin_ns;
		if (a.held && i == 0)
			t->r.vmpin[1] = vmpin_kb();
		if (a.held)
			p->ops->unpin(p, &t->m, &a);
		if (a.held && !cr->failed_at)
			lt_note(t, "cycle %u: the MR stayed (%s)", i + 1, a.note);
		if ((a.result != answer || a.held) && !cr->failed_at) {
			cr->failed_at = i + 1;
			cr->failed_result = a.held ? -EBUSY : a.result;
		}
	}
}

/*
 * 10,000 (or --cycles N) ibv_reg_mr/ibv_dereg_mr cycles of the buffer,
 * refused types too (a refusal must unpin what it pinned).
 */
static int rdma_cycles(struct lt *t, struct pinner *p)
{
	unsigned int n = t->o->cycles ? t->o->cycles : LT_CYCLES;
	struct cycles_result *cr = &t->r.cyc;
	int answer = cycles_answer(t, p);
	double *ns = calloc(n, sizeof(*ns));
	uint64_t t0 = now_ns();

	if (!ns)
		return -ENOMEM;
	memset(cr, 0, sizeof(*cr));
	cycles_loop(t, p, n, answer, ns);
	qsort(ns, n, sizeof(*ns), cmp_dbl);
	cr->n = n;
	cr->reg_min = ns[0];
	cr->reg_med = ns[n / 2];
	cr->reg_max = ns[n - 1];
	free(ns);
	lt_note(t, "%u ibv_reg_mr/ibv_dereg_mr cycles of %zu pages in %.2f s, each answering %s",
		n, t->m.len / 4096, (now_ns() - t0) / 1e9,
		answer ? errno_name(answer) : "0");
	return lt_cycles_end(t, cr, n, answer);
}

#ifdef LONGPIN_HAVE_IBVERBS
#include <infiniband/verbs.h>

#define LOOP_PORT	1
#define LOOP_WAIT_NS	(30 * 1000000000ULL)

/* Two RC queue pairs of the pinner's PD, connected to each other. */
struct loop {
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_mr *src_mr;
	char *src;			/* what the RDMA WRITE sends */
	int gidx;
	union ibv_gid gid;
	enum ibv_mtu mtu;
};

/* The port's MTU and its first GID (rxe: dummy0's link-local address). */
static int loop_gid(struct loop *l, struct ibv_context *ctx, struct lt *t)
{
	struct ibv_port_attr pa;
	int i;

	if (ibv_query_port(ctx, LOOP_PORT, &pa)) {
		lt_note(t, "ibv_query_port: %s", strerror(errno));
		return -EIO;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		lt_note(t, "RDMA port %d is not ACTIVE: bring its netdev up (ip link set dummy0 up)",
			LOOP_PORT);
		return LT_SKIP;
	}
	l->mtu = pa.active_mtu;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid(ctx, LOOP_PORT, i, &l->gid))
			continue;
		if (l->gid.global.subnet_prefix || l->gid.global.interface_id) {
			l->gidx = i;
			return 0;
		}
	}
	lt_note(t, "RDMA port %d has no GID: give its netdev an address (ip addr add 10.0.0.1/24 dev dummy0)",
		LOOP_PORT);
	return LT_SKIP;
}

/* RESET -> INIT -> RTR -> RTS, its peer @dest on the same port and GID. */
static int qp_connect(struct loop *l, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = LOOP_PORT,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = l->mtu,
		.dest_qp_num = dest, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = LOOP_PORT,
			     .grh = { .dgid = l->gid, .sgid_index = l->gidx,
				      .hop_limit = 64 } },
	};
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .max_rd_atomic = 1,
	};
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void loop_down(struct loop *l)
{
	int i;

	for (i = 0; i < 2; i++)
		if (l->qp[i])
			ibv_destroy_qp(l->qp[i]);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	if (l->src_mr)
		ibv_dereg_mr(l->src_mr);
	free(l->src);
}

/* The queue pairs, connected, and the source buffer with its pattern. */
static int loop_up(struct loop *l, struct pinner *p, struct lt *t)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i, ret = loop_gid(l, rdma_ctx(p), t);

	if (ret)
		return ret;
	l->cq = ibv_create_cq(rdma_ctx(p), 4, NULL, NULL, 0);
	if (!l->cq) {
		lt_note(t, "ibv_create_cq: %s", strerror(errno));
		return -EIO;
	}
	ia.send_cq = ia.recv_cq = l->cq;
	for (i = 0; i < 2; i++) {
		l->qp[i] = ibv_create_qp(rdma_pd(p), &ia);
		if (!l->qp[i]) {
			lt_note(t, "ibv_create_qp: %s", strerror(errno));
			return -EIO;
		}
	}
	for (i = 0; i < 2; i++) {
		ret = qp_connect(l, l->qp[i], l->qp[!i]->qp_num);
		if (ret) {
			lt_note(t, "loopback QP to RTS (GID index %d): %s",
				l->gidx, strerror(ret));
			return -EIO;
		}
	}
	l->src = aligned_alloc(4096, t->m.len);
	if (!l->src)
		return -ENOMEM;
	pattern_fill(l->src, t->m.len, now_ns() | 1);
	l->src_mr = ibv_reg_mr(rdma_pd(p), l->src, t->m.len,
			       IBV_ACCESS_LOCAL_WRITE);
	if (!l->src_mr) {
		lt_note(t, "ibv_reg_mr of the source: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}

/* RDMA WRITE the source into @mr (the buffer under test), waited for. */
static int loop_write(struct loop *l, struct lt *t, struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)l->src,
			       .length = t->m.len, .lkey = l->src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	uint64_t end = now_ns() + LOOP_WAIT_NS;
	struct ibv_wc wc;
	int n, ret;

	wr.wr.rdma.remote_addr = (uintptr_t)t->m.addr;
	wr.wr.rdma.rkey = mr->rkey;
	ret = ibv_post_send(l->qp[0], &wr, &bad);
	if (ret) {
		lt_note(t, "ibv_post_send RDMA WRITE: %s", strerror(ret));
		return -EIO;
	}
	while (!(n = ibv_poll_cq(l->cq, 1, &wc)) && now_ns() < end)
		usleep(100);
	if (n <= 0) {
		lt_note(t, "RDMA WRITE: %s", n ? "ibv_poll_cq failed" :
			"no completion in 30 s");
		return -EIO;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		lt_note(t, "RDMA WRITE completed with %s",
			ibv_wc_status_str(wc.status));
		return -EIO;
	}
	return 0;
}

/* Bytes of the buffer that differ from what the RDMA WRITE put there. */
static size_t bytes_lost(struct lt *t, const char *src)
{
	const char *buf = t->m.addr;
	size_t i, lost = 0;

	if (!memcmp(buf, src, t->m.len))
		return 0;
	for (i = 0; i < t->m.len; i++)
		lost += buf[i] != src[i];
	return lost;
}

/* Register, RDMA WRITE, deregister, reclaim, compare. */
static int reclaim_run(struct lt *t, struct pinner *p, struct loop *l)
{
	struct pin_answer a = { .pinned = -1 };
	long v0;
	int ret;

	/* lazyfree: the buffer written, then lazily freed, before the MR */
	if (!strcmp(t->o->lifetime, "lazyfree")) {
		pattern_fill(t->m.addr, t->m.len, now_ns() ^ 0x1a2ef4eeULL);
		if (madvise(t->m.addr, t->m.len, MADV_FREE)) {
			lt_note(t, "MADV_FREE: %s: nothing is lazily freed",
				errno_name(errno));
			return LT_SKIP;
		}
	}
	v0 = vmpin_kb();
	p->ops->pin(p, &t->m, &a);
	t->r.reg_ns = a.pin_ns;
	/* the MR under test's charge, not the source's */
	t->r.vmpin[1] = t->r.vmpin[0] + vmpin_kb() - v0;
	if (a.result) {
		lt_note(t, "ibv_reg_mr answered %s", errno_name(a.result));
		return a.result;
	}
	ret = loop_write(l, t, rdma_mr(p));
	p->ops->unpin(p, &t->m, &a);
	t->r.unreg_ns = a.unpin_ns;
	if (a.held)
		return lt_fail(t, "%s", a.note);
	if (ret)
		return ret;
	if (lt_page_out(t, "after ibv_dereg_mr"))
		return LT_SKIP;
	lt_note(t, "%ld of %zu pages resident after the page-out",
		resident_pages(t->m.addr, t->m.len), t->m.len / 4096);
	return lt_data_lost(t, bytes_lost(t, l->src), "the RDMA WRITE");
}

static int rdma_reclaim(struct lt *t, struct pinner *p)
{
	struct loop l = { 0 };
	int ret = loop_up(&l, p, t);

	if (!ret)
		ret = reclaim_run(t, p, &l);
	loop_down(&l);
	return ret;
}

#else /* !LONGPIN_HAVE_IBVERBS: open() has skipped already */

static int rdma_reclaim(struct lt *t, struct pinner *p)
{
	(void)p;
	lt_note(t, "built without libibverbs");
	return LT_SKIP;
}

#endif

/*
 * reclaim and lazyfree need the buffer registered and writable (lazyfree
 * private anonymous too): else a skip, why.
 */
static int reclaim_applies(struct lt *t)
{
	bool nofault;
	int err;

	if (t->ops->flags & MEM_RDONLY) {
		lt_note(t, "%s: the buffer is read-only", t->ops->name);
		return LT_SKIP;
	}
	if (lt_case_reclaim.why_not(t->ops)) {
		lt_note(t, "%s: %s", t->ops->name,
			lt_case_reclaim.why_not(t->ops));
		return LT_SKIP;
	}
	if (!strcmp(t->o->lifetime, "lazyfree") &&
	    !lt_case_applies(&lt_case_lazyfree, t->ops)) {
		lt_note(t, "%s: %s", t->ops->name, lt_case_lazyfree.why);
		return LT_SKIP;
	}
	if (!contract_lookup_pinner(t->c, "rdma", t->ops->name, t->pf,
				    t->o->size, &err, &nofault) || !err)
		return 0;
	lt_note(t, "%s is refused on this kernel (contract %s: ibv_reg_mr -%s): nothing registered to test",
		t->ops->name, contract_name(t->c), errno_name(err));
	return LT_SKIP;
}

/* One case at one prefault: its row, or LT_SKIP (t->note: why). */
static int rdma_case(struct lt *t, struct pinner *p, bool cycles)
{
	char op[48];
	int ret, pop;

	snprintf(op, sizeof(op), "lifetime-%s", t->o->lifetime);
	lt_row_reset(t, t->ops->name, t->o->size);
	t->r.pinner = "rdma";
	t->r.have_expected = contract_lookup_case_pinner(t->c, "rdma",
		t->o->lifetime, t->ops->name, t->pf, t->o->size,
		&t->r.expected, &t->defect);
	ret = cycles ? 0 : reclaim_applies(t);
	if (ret)
		return ret;
	ret = lt_mem_up(t, &pop);
	if (ret != LP_OK)
		return ret;
	ret = pop;
	if (!ret)
		ret = cycles ? rdma_cycles(t, p) : rdma_reclaim(t, p);
	if (ret == LT_SKIP)
		return ret;
	t->r.vmpin[2] = lt_pin_wait(t, 2000, &(unsigned int){ 0 });
	if (t->r.vmpin[2] != t->r.vmpin[0])
		ret = lt_leak(t, ret);
	lt_row_counters(t);
	return lt_emit(t, op, ret);
}

static int run_pf(struct lt *t, struct pinner *p)
{
	int ret = rdma_case(t, p, !strcmp(t->o->lifetime, "cycles"));

	if (t->mem_up)
		mem_teardown(&t->m);
	t->mem_up = false;
	if (ret == LT_SKIP)
		return lp_err(LP_SKIP, "--lifetime %s --pinner rdma: %s",
			      t->o->lifetime, t->note);
	return ret;
}

int pinner_lifetime_main(const struct mem_ops *mops, const struct opts *o,
			 const struct contract *c)
{
	struct pinner p = { .ops = &pin_rdma_ops, .write = true, .fd = -1 };
	struct lt t = { .o = o, .c = c, .ops = mops, .tfd = -1 };
	int ret, worst = LP_OK;

	ret = p.ops->open(&p, o);
	if (ret != LP_OK)
		return ret;
	for (t.pf = 0; t.pf < PF_NR; t.pf++) {
		if (!(o->prefaults & (1u << t.pf)))
			continue;
		ret = run_pf(&t, &p);
		if (ret == LP_EUSAGE || ret == LP_SKIP) {
			worst = ret;
			break;
		}
		if (ret > worst)
			worst = ret;
	}
	p.ops->close(&p);
	return worst;
}
