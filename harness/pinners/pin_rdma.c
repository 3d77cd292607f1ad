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

struct rdma {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
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

static void rdma_close(struct pinner *p)
{
	struct rdma *r = p->priv;

	if (!r)
		return;
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	free(r);
	p->priv = NULL;
}

static int rdma_open(struct pinner *p, const struct opts *o)
{
	const char *want = getenv("LONGPIN_RDMA_DEV");
	struct ibv_device **list;
	struct ibv_device *dev;
	char names[256];
	int n = 0, ret;

	(void)o;
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
	t0 = now_ns();
	r->mr = ibv_reg_mr(r->pd, m->addr, m->len, access);
	a->pin_ns = (now_ns() - t0) / pages;
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

static void rdma_unpin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	struct rdma *r = p->priv;
	uint64_t t0;
	int ret;

	if (!r->mr)
		return;
	t0 = now_ns();
	ret = ibv_dereg_mr(r->mr);
	a->unpin_ns = (now_ns() - t0) / (m->len / 4096.0);
	if (ret) {
		/* the MR and its pin stay: close() tries once more */
		snprintf(a->note, sizeof(a->note), "ibv_dereg_mr: %s",
			 strerror(ret));
		return;
	}
	r->mr = NULL;
	a->held = false;
}

struct ibv_context *rdma_ctx(const struct pinner *p)
{
	return ((struct rdma *)p->priv)->ctx;
}

struct ibv_pd *rdma_pd(const struct pinner *p)
{
	return ((struct rdma *)p->priv)->pd;
}

struct ibv_mr *rdma_mr(const struct pinner *p)
{
	return ((struct rdma *)p->priv)->mr;
}

#else /* !LONGPIN_HAVE_IBVERBS */

static int rdma_open(struct pinner *p, const struct opts *o)
{
	(void)o;
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

static void rdma_unpin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	(void)p;
	(void)m;
	(void)a;
}

static void rdma_close(struct pinner *p)
{
	(void)p;
}

#endif /* LONGPIN_HAVE_IBVERBS */

const struct pinner_ops pin_rdma_ops = {
	.name = "rdma",
	.open = rdma_open,
	.pin = rdma_pin,
	.unpin = rdma_unpin,
	.close = rdma_close,
};
