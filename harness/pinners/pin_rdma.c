// SPDX-License-Identifier: GPL-2.0
/*
 * The rdma pinner: the buffer registered as an RDMA application registers
 * memory, ibv_reg_mr() on a protection domain of an RDMA device, and
 * ibv_dereg_mr() to unpin. The kernel's ib_umem_get() pins the range with
 * pin_user_pages_fast(FOLL_LONGTERM), FOLL_WRITE for a memory region the
 * device may write (LOCAL_WRITE|REMOTE_WRITE). A REMOTE_READ region is a
 * read-only pin since 6.2 ("RDMA/umem: remove FOLL_FORCE usage"); 6.1
 * pins it with FOLL_WRITE|FOLL_FORCE, so that there a PROT_READ shared
 * file mapping is refused (-EFAULT) which 6.12 pins. The guests of the
 * Debian kernels have a soft-RoCE device, rxe0 over dummy0
 * (vm/guest/init); $LONGPIN_RDMA_DEV picks another one. Built with
 * libibverbs only: without it, open() skips.
 *
 * The device's write (dev_write, for the lifetime cases): an RDMA WRITE
 * over a loopback RC queue pair pair of the same device (rxe loops it
 * back) from a source MR into the MR under test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pinner.h"

#ifdef LONGPIN_HAVE_IBVERBS
#include <dirent.h>
#include <infiniband/verbs.h>
#include <unistd.h>

#define RDMA_NO_DEV \
	"modprobe rdma_rxe; ip link add dummy0 type dummy; ip link set dummy0 up; rdma link add rxe0 type rxe netdev dummy0"

#define LOOP_PORT	1
#define LOOP_WAIT_NS	(30 * 1000000000ULL)

/* Two RC queue pairs of the pinner's PD, connected to each other. */
struct loop {
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	int gidx;
	union ibv_gid gid;
	enum ibv_mtu mtu;
};

struct rdma {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct loop *loop;	/* dev_write's, set up at its first call */
};

/* The first entry of /sys/class/infiniband, or NULL: none. */
static const char *rdma_sysfs_dev(char *buf, size_t n)
{
	DIR *d = opendir("/sys/class/infiniband");
	const char *ret = NULL;
	struct dirent *e;

	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(buf, n, "%s", e->d_name);
		ret = buf;
		break;
	}
	closedir(d);
	return ret;
}

/* No device libibverbs can open: why, and the fix. */
static int rdma_none(void)
{
	char dev[NAME_MAX + 1];

	if (rdma_sysfs_dev(dev, sizeof(dev)))
		return lp_err(LP_SKIP,
			      "--pinner rdma: the kernel has RDMA device %s but libibverbs lists none: load ib_uverbs and install its provider (apt-get install ibverbs-providers)",
			      dev);
	if (access("/sys/class/net", F_OK))
		return lp_err(LP_SKIP,
			      "--pinner rdma: no RDMA device, and this kernel has no networking for a soft-RoCE one: use a kernel with CONFIG_NET and CONFIG_RDMA_RXE");
	return lp_err(LP_SKIP, "--pinner rdma: no RDMA device: %s", RDMA_NO_DEV);
}

/* The names of @list, space separated, for an error. */
static void rdma_names(struct ibv_device **list, int n, char *buf, size_t len)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? " " : "",
			       ibv_get_device_name(list[i]));
}

/* @want (LONGPIN_RDMA_DEV), else the first rxe device, else the first. */
static struct ibv_device *rdma_pick(struct ibv_device **list, int n,
				    const char *want)
{
	int i;

	for (i = 0; want && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), want))
			return list[i];
	if (want)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strncmp(ibv_get_device_name(list[i]), "rxe", 3))
			return list[i];
	return list[0];
}

/* Open @dev and allocate a protection domain into @r. */
static int rdma_open_dev(struct rdma *r, struct ibv_device *dev)
{
	const char *name = ibv_get_device_name(dev);

	r->ctx = ibv_open_device(dev);
	if (!r->ctx)
		return lp_err(LP_SKIP,
			      "--pinner rdma: ibv_open_device %s: %s: /dev/infiniband/uverbs* must exist (ib_uverbs) and be readable and writable",
			      name, strerror(errno));
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd)
		return lp_err(LP_SKIP, "--pinner rdma: ibv_alloc_pd on %s: %s",
			      name, strerror(errno));
	return LP_OK;
}

static void loop_down(struct loop *l);

static void rdma_close(struct pinner *p)
{
	struct rdma *r = p->priv;

	if (!r)
		return;
	if (r->loop)
		loop_down(r->loop);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	free(r);
	p->priv = NULL;
}

static int rdma_open(struct pinner *p)
{
	const char *want = getenv("LONGPIN_RDMA_DEV");
	struct ibv_device **list;
	struct ibv_device *dev;
	char names[256];
	int n = 0, ret;

	if (want && !*want)
		want = NULL;
	p->priv = calloc(1, sizeof(struct rdma));
	if (!p->priv)
		return lp_err(LP_EUSAGE, "--pinner rdma: out of memory");
	list = ibv_get_device_list(&n);
	if (!list || !n) {
		ret = rdma_none();
		goto out;
	}
	dev = rdma_pick(list, n, want);
	if (!dev) {
		rdma_names(list, n, names, sizeof(names));
		ret = lp_err(LP_EUSAGE,
			     "--pinner rdma: LONGPIN_RDMA_DEV=%s: no such RDMA device (there are: %s): name one of them, or unset it",
			     want, names);
		goto out;
	}
	ret = rdma_open_dev(p->priv, dev);
out:
	if (list)
		ibv_free_device_list(list);
	if (ret != LP_OK)
		rdma_close(p);
	return ret;
}

/*
 * ibv_reg_mr(): NULL and errno when the kernel refuses. ib_umem_get()
 * unpins what it pinned before it fails, so a refusal holds nothing.
 */
static int rdma_pin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	struct rdma *r = p->priv;
	double pages = m->len / 4096.0;
	int access = p->write ?
		     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE :
		     IBV_ACCESS_REMOTE_READ;
	uint64_t t0;

	errno = 0;
	t0 = lp_now_ns();
	r->mr = ibv_reg_mr(r->pd, m->addr, m->len, access);
	a->pin_ns = (lp_now_ns() - t0) / pages;
	if (!r->mr) {
		a->result = errno ? -errno : -EINVAL;
		a->pinned = 0;
		a->held = false;
		return LP_OK;
	}
	a->result = 0;
	a->pinned = m->len / 4096;
	a->held = true;
	return LP_OK;
}

static int rdma_unpin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	struct rdma *r = p->priv;
	uint64_t t0;
	int ret;

	if (!r->mr)
		return 0;
	t0 = lp_now_ns();
	ret = ibv_dereg_mr(r->mr);
	a->unpin_ns = (lp_now_ns() - t0) / (m->len / 4096.0);
	if (ret) {
		/* the MR and its pin stay: close() tries once more */
		snprintf(a->note, sizeof(a->note), "ibv_dereg_mr: %s",
			 strerror(ret));
		return -ret;
	}
	r->mr = NULL;
	a->held = false;
	return 0;
}

/* The port's MTU and its first GID (rxe: dummy0's link-local address). */
static int loop_gid(struct loop *l, struct ibv_context *ctx, char *note,
		    size_t n)
{
	struct ibv_port_attr pa;
	int i;

	if (ibv_query_port(ctx, LOOP_PORT, &pa)) {
		snprintf(note, n, "ibv_query_port: %s", strerror(errno));
		return -EIO;
	}
	if (pa.state != IBV_PORT_ACTIVE) {
		snprintf(note, n, "RDMA port %d is not ACTIVE: bring its netdev up (ip link set dummy0 up)",
			 LOOP_PORT);
		return LP_SKIP;
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
	snprintf(note, n, "RDMA port %d has no GID: give its netdev an address (ip addr add 10.0.0.1/24 dev dummy0)",
		 LOOP_PORT);
	return LP_SKIP;
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
	free(l);
}

/* The queue pairs, connected: 0, -errno or LP_SKIP, @note says why. */
static int loop_up(struct loop *l, struct rdma *r, char *note, size_t n)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i, ret = loop_gid(l, r->ctx, note, n);

	if (ret)
		return ret;
	l->cq = ibv_create_cq(r->ctx, 4, NULL, NULL, 0);
	if (!l->cq) {
		snprintf(note, n, "ibv_create_cq: %s", strerror(errno));
		return -EIO;
	}
	ia.send_cq = ia.recv_cq = l->cq;
	for (i = 0; i < 2; i++) {
		l->qp[i] = ibv_create_qp(r->pd, &ia);
		if (!l->qp[i]) {
			snprintf(note, n, "ibv_create_qp: %s", strerror(errno));
			return -EIO;
		}
	}
	for (i = 0; i < 2; i++) {
		ret = qp_connect(l, l->qp[i], l->qp[!i]->qp_num);
		if (ret) {
			snprintf(note, n, "loopback QP to RTS (GID index %d): %s",
				 l->gidx, strerror(ret));
			return -EIO;
		}
	}
	return 0;
}

/* RDMA WRITE @len bytes of @src (MR @src_mr) into @dst (MR @mr), waited for. */
static int loop_write(struct loop *l, struct ibv_mr *src_mr, struct ibv_mr *mr,
		      void *dst, size_t len, char *note, size_t n)
{
	struct ibv_sge sge = { .addr = (uintptr_t)src_mr->addr,
			       .length = len, .lkey = src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	uint64_t end = lp_now_ns() + LOOP_WAIT_NS;
	struct ibv_wc wc;
	int got, ret;

	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = mr->rkey;
	ret = ibv_post_send(l->qp[0], &wr, &bad);
	if (ret) {
		snprintf(note, n, "ibv_post_send RDMA WRITE: %s", strerror(ret));
		return -EIO;
	}
	while (!(got = ibv_poll_cq(l->cq, 1, &wc)) && lp_now_ns() < end)
		usleep(100);
	if (got <= 0) {
		snprintf(note, n, "RDMA WRITE: %s", got ? "ibv_poll_cq failed" :
			 "no completion in 30 s");
		return -EIO;
	}
	if (wc.status != IBV_WC_SUCCESS) {
		snprintf(note, n, "RDMA WRITE completed with %s",
			 ibv_wc_status_str(wc.status));
		return -EIO;
	}
	return 0;
}

/*
 * The device writes the MR under test: @pat repeated over a source
 * buffer of the MR's length, registered for the write alone, sent by an
 * RDMA WRITE over the loopback queue pairs.
 */
static int rdma_dev_write(struct pinner *p, struct mem *m, const void *pat,
			  size_t chunk, int src_fd, char *note, size_t n)
{
	struct rdma *r = p->priv;
	struct ibv_mr *src_mr;
	size_t off, len;
	char *src;
	int ret;

	(void)src_fd;
	if (!r->loop) {
		r->loop = calloc(1, sizeof(*r->loop));
		if (!r->loop)
			return -ENOMEM;
		ret = loop_up(r->loop, r, note, n);
		if (ret) {
			loop_down(r->loop);
			r->loop = NULL;
			return ret;
		}
	}
	src = aligned_alloc(4096, m->len);
	if (!src)
		return -ENOMEM;
	for (off = 0; off < m->len; off += len) {
		len = m->len - off < chunk ? m->len - off : chunk;
		memcpy(src + off, pat, len);
	}
	src_mr = ibv_reg_mr(r->pd, src, m->len, IBV_ACCESS_LOCAL_WRITE);
	if (!src_mr) {
		snprintf(note, n, "ibv_reg_mr of the source: %s", strerror(errno));
		free(src);
		return -EIO;
	}
	ret = loop_write(r->loop, src_mr, r->mr, m->addr, m->len, note, n);
	ibv_dereg_mr(src_mr);
	free(src);
	return ret;
}

#else /* !LONGPIN_HAVE_IBVERBS */

static int rdma_open(struct pinner *p)
{
	p->priv = NULL;
	return lp_err(LP_SKIP,
		      "--pinner rdma: longpin was built without libibverbs: apt-get install libibverbs-dev and rebuild");
}

static int rdma_pin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	(void)p;
	(void)m;
	a->result = -ENOSYS;
	a->pinned = 0;
	a->held = false;
	return LP_SKIP;
}

static int rdma_unpin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	(void)p;
	(void)m;
	(void)a;
	return 0;
}

static int rdma_dev_write(struct pinner *p, struct mem *m, const void *pat,
			  size_t chunk, int src_fd, char *note, size_t n)
{
	(void)p;
	(void)m;
	(void)pat;
	(void)chunk;
	(void)src_fd;
	snprintf(note, n, "built without libibverbs");
	return LP_SKIP;
}

static void rdma_close(struct pinner *p)
{
	(void)p;
}

#endif /* LONGPIN_HAVE_IBVERBS */

const struct pinner_ops lp_pin_rdma_ops = {
	.open = rdma_open,
	.pin = rdma_pin,
	.unpin = rdma_unpin,
	.close = rdma_close,
	.dev_write = rdma_dev_write,
	.pin_call = "ibv_reg_mr",
	.cycle_call = "ibv_reg_mr/ibv_dereg_mr",
	.dev_writer = "the RDMA WRITE",
	.readonly = true,
};
