// SPDX-License-Identifier: GPL-2.0
/*
 * The vfio pinner: the buffer mapped for a device's DMA as a user-space
 * driver (DPDK, QEMU) maps it, VFIO_IOMMU_MAP_DMA on a type1 container
 * that holds the IOMMU group of a device bound to vfio-pci, and
 * VFIO_IOMMU_UNMAP_DMA to unpin. vfio_iommu_type1's vaddr_get_pfns()
 * pins the range with pin_user_pages_remote(FOLL_LONGTERM), FOLL_WRITE
 * when the map lets the device write (VFIO_DMA_MAP_FLAG_WRITE; not with
 * --readonly-pin), and charges the pages to the mm's locked_vm (VmLck),
 * against RLIMIT_MEMLOCK without CAP_IPC_LOCK. The guests of the Debian
 * kernels with `longpin-vm run --vfio` have QEMU's edu device behind an
 * emulated intel-iommu, bound to vfio-pci (vm/guest/init);
 * $LONGPIN_VFIO_DEV picks another device (0000:00:01.0: edu there).
 *
 * The device cannot be made to write (edu's DMA engine is not driven
 * here): no dev_write, so no lifetime case takes vfio yet.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "longpin.h"
#include "pinner.h"

#define VFIO_DRV	"/sys/bus/pci/drivers/vfio-pci"
#define VFIO_PCI_DEVS	"/sys/bus/pci/devices"
#define VFIO_CONTAINER	"/dev/vfio/vfio"
#define VFIO_BIND \
	"echo vfio-pci > /sys/bus/pci/devices/D/driver_override; echo D > /sys/bus/pci/drivers_probe"
#define VFIO_IOVA	0x100000000ULL	/* 4 GiB: above the MSI window */
#define VFIO_IOVA_ALIGN	(2ULL << 20)

struct vfio {
	int container;
	int group;
	bool mapped;
	size_t len;		/* of the mapping */
	__u64 iova;		/* where the buffer is mapped in the device's view */
	long vmlck[2];		/* VmLck kB before and after the map */
};

/* Is @name a PCI address, DDDD:BB:DD.F? */
static bool pci_addr(const char *name)
{
	unsigned int d, b, s, f;
	char end;

	return sscanf(name, "%4x:%2x:%2x.%1x%c", &d, &b, &s, &f, &end) == 4;
}

/* The first device bound to vfio-pci into @dev; LP_OK or a skip. */
static int vfio_first_dev(char *dev, size_t n)
{
	DIR *d = opendir(VFIO_DRV);
	struct dirent *e;
	bool found = false;

	if (!d)
		return lp_err(LP_SKIP,
			      "--pinner vfio: vfio-pci is not loaded (no %s): modprobe vfio-pci, then bind a device to it (%s)",
			      VFIO_DRV, VFIO_BIND);
	while (!found && (e = readdir(d))) {
		found = pci_addr(e->d_name);
		if (found)
			snprintf(dev, n, "%s", e->d_name);
	}
	closedir(d);
	if (found)
		return LP_OK;
	return lp_err(LP_SKIP,
		      "--pinner vfio: no device bound to vfio-pci: bind one (%s), or name one in LONGPIN_VFIO_DEV",
		      VFIO_BIND);
}

/* $LONGPIN_VFIO_DEV: a PCI device that exists and is bound to vfio-pci. */
static int vfio_named_dev(const char *want, char *dev, size_t n)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", VFIO_PCI_DEVS, want);
	if (!pci_addr(want) || access(path, F_OK))
		return lp_err(LP_EUSAGE,
			      "--pinner vfio: LONGPIN_VFIO_DEV=%s: no such PCI device (%s/): give its address, e.g. 0000:00:01.0, or unset it",
			      want, VFIO_PCI_DEVS);
	snprintf(path, sizeof(path), "%s/%s", VFIO_DRV, want);
	if (access(path, F_OK))
		return lp_err(LP_SKIP,
			      "--pinner vfio: LONGPIN_VFIO_DEV=%s is not bound to vfio-pci: bind it (%s, D=%s)",
			      want, VFIO_BIND, want);
	snprintf(dev, n, "%s", want);
	return LP_OK;
}

/* The IOMMU group number of @dev, or -1 after a one-line skip. */
static int vfio_group_of(const char *dev)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/%s/iommu_group", VFIO_PCI_DEVS, dev);
	len = readlink(path, link, sizeof(link) - 1);
	if (len < 0) {
		lp_err(LP_SKIP,
		       "--pinner vfio: %s has no IOMMU group (%s): turn an IOMMU on (intel_iommu=on on the kernel command line)",
		       dev, strerror(errno));
		return -1;
	}
	link[len] = '\0';
	base = strrchr(link, '/');
	return atoi(base ? base + 1 : link);
}

/* The container, its API and the type1 IOMMU it offers: LP_OK or a skip. */
static int vfio_container(struct vfio *v, unsigned long *type)
{
	v->container = open(VFIO_CONTAINER, O_RDWR | O_CLOEXEC);
	if (v->container < 0)
		return lp_err(LP_SKIP, "--pinner vfio: %s: %s: %s",
			      VFIO_CONTAINER, strerror(errno),
			      errno == ENOENT ? "modprobe vfio" : "run as root");
	if (ioctl(v->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION)
		return lp_err(LP_SKIP,
			      "--pinner vfio: %s speaks another API than VFIO_API_VERSION %d: use a kernel with the vfio container (CONFIG_VFIO_CONTAINER)",
			      VFIO_CONTAINER, VFIO_API_VERSION);
	*type = VFIO_TYPE1v2_IOMMU;
	if (ioctl(v->container, VFIO_CHECK_EXTENSION, *type) > 0)
		return LP_OK;
	*type = VFIO_TYPE1_IOMMU;
	if (ioctl(v->container, VFIO_CHECK_EXTENSION, *type) > 0)
		return LP_OK;
	return lp_err(LP_SKIP,
		      "--pinner vfio: the vfio container offers no type1 IOMMU: modprobe vfio_iommu_type1");
}

/* Group @nr of @dev into the container, whose IOMMU becomes @type. */
static int vfio_attach(struct vfio *v, const char *dev, int nr,
		       unsigned long type)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	char path[32];

	snprintf(path, sizeof(path), "/dev/vfio/%d", nr);
	v->group = open(path, O_RDWR | O_CLOEXEC);
	if (v->group < 0)
		return lp_err(LP_SKIP, "--pinner vfio: %s (group of %s): %s: %s",
			      path, dev, strerror(errno),
			      errno == EBUSY ? "another process holds the group: stop it" :
			      "run as root");
	if (ioctl(v->group, VFIO_GROUP_GET_STATUS, &st) ||
	    !(st.flags & VFIO_GROUP_FLAGS_VIABLE))
		return lp_err(LP_SKIP,
			      "--pinner vfio: IOMMU group %d of %s is not viable: bind every device of /sys/kernel/iommu_groups/%d/devices to vfio-pci",
			      nr, dev, nr);
	if (ioctl(v->group, VFIO_GROUP_SET_CONTAINER, &v->container))
		return lp_err(LP_SKIP, "--pinner vfio: VFIO_GROUP_SET_CONTAINER of group %d: %s",
			      nr, strerror(errno));
	if (ioctl(v->container, VFIO_SET_IOMMU, type))
		return lp_err(LP_SKIP, "--pinner vfio: VFIO_SET_IOMMU type %lu: %s",
			      type, strerror(errno));
	return LP_OK;
}

static void vfio_close(struct pinner *p)
{
	struct vfio *v = p->priv;
	struct vfio_iommu_type1_dma_unmap um = { .argsz = sizeof(um) };

	if (!v)
		return;
	if (v->mapped) {
		um.iova = v->iova;
		um.size = v->len;
		ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &um);
	}
	if (v->group >= 0)
		close(v->group);
	if (v->container >= 0)
		close(v->container);
	free(v);
	p->priv = NULL;
}

/*
 * Without CAP_IPC_LOCK, vfio refuses a map past RLIMIT_MEMLOCK (-ENOMEM;
 * it charges VmLck): say so first, unless --no-memlock-check asks for the
 * kernel's own answer.
 */
static int vfio_memlock(const struct opts *o)
{
	struct rlimit rl;
	long locked;

	if (o->no_memlock_check || lp_have_cap_ipc_lock() ||
	    getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return LP_OK;
	locked = lp_vmlck_kb();
	if (rl.rlim_cur / KiB >= o->size / KiB + (locked > 0 ? locked : 0))
		return LP_OK;
	return lp_err(LP_EUSAGE,
		      "--pinner vfio: RLIMIT_MEMLOCK is %llu kB and VmLck %ld kB, a DMA map of %zu kB is charged to VmLck: run `ulimit -l unlimited` first (or give CAP_IPC_LOCK)",
		      (unsigned long long)rl.rlim_cur / KiB, locked,
		      o->size / KiB);
}

static int vfio_open(struct pinner *p)
{
	const char *want = getenv("LONGPIN_VFIO_DEV");
	char dev[NAME_MAX + 1];
	unsigned long type;
	struct vfio *v;
	int ret, nr;

	v = calloc(1, sizeof(*v));
	if (!v)
		return lp_err(LP_EUSAGE, "--pinner vfio: out of memory");
	v->container = v->group = -1;
	p->priv = v;
	ret = want && *want ? vfio_named_dev(want, dev, sizeof(dev)) :
	      vfio_first_dev(dev, sizeof(dev));
	if (ret != LP_OK)
		goto out;
	nr = vfio_group_of(dev);
	if (nr < 0) {
		ret = LP_SKIP;
		goto out;
	}
	ret = vfio_container(v, &type);
	if (ret == LP_OK)
		ret = vfio_attach(v, dev, nr, type);
	if (ret == LP_OK)
		ret = vfio_memlock(p->o);
out:
	if (ret != LP_OK)
		vfio_close(p);
	return ret;
}

/* The usable IOVA ranges in @info (@sz bytes), or NULL: none told. */
static struct vfio_iommu_type1_info_cap_iova_range *
iova_cap(struct vfio_iommu_type1_info *info, size_t sz)
{
	struct vfio_info_cap_header *h;
	__u32 at = info->cap_offset;

	if (!(info->flags & VFIO_IOMMU_INFO_CAPS) || info->argsz > sz)
		return NULL;
	while (at && at + sizeof(*h) <= sz) {
		h = (void *)((char *)info + at);
		if (h->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE)
			return (void *)h;
		at = h->next;
	}
	return NULL;
}

/*
 * The IOVA of a @len mapping: 4 GiB when the IOMMU's usable ranges
 * (VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) hold it there, else the first
 * 2 MiB aligned place of a range that holds it; 4 GiB when the kernel
 * tells no ranges.
 */
static __u64 vfio_iova(const struct vfio *v, size_t len)
{
	struct vfio_iommu_type1_info_cap_iova_range *cap;
	struct vfio_iommu_type1_info *info;
	__u64 at, best = VFIO_IOVA, want[2] = { VFIO_IOVA, 0 };
	size_t sz = 4096;
	__u32 i, k;

	info = calloc(1, sz);
	if (!info)
		return VFIO_IOVA;
	info->argsz = sz;
	if (ioctl(v->container, VFIO_IOMMU_GET_INFO, info))
		goto out;
	cap = iova_cap(info, sz);
	for (k = 0; cap && k < 2; k++) {
		for (i = 0; i < cap->nr_iovas; i++) {
			at = cap->iova_ranges[i].start > want[k] ?
			     cap->iova_ranges[i].start : want[k];
			at = (at + VFIO_IOVA_ALIGN - 1) & ~(VFIO_IOVA_ALIGN - 1);
			if (at + len - 1 <= cap->iova_ranges[i].end &&
			    (k || at == VFIO_IOVA)) {
				best = at;
				goto out;
			}
		}
	}
out:
	free(info);
	return best;
}

/*
 * VFIO_IOMMU_MAP_DMA: 0 or -errno. vfio_dma_do_map() unpins and unmaps
 * what it did before it fails, so a refusal holds nothing.
 */
static int vfio_pin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	struct vfio *v = p->priv;
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = VFIO_DMA_MAP_FLAG_READ |
			 (p->write ? VFIO_DMA_MAP_FLAG_WRITE : 0),
		.vaddr = (uintptr_t)m->addr,
		.size = m->len,
	};
	uint64_t t0;
	int ret;

	v->iova = map.iova = vfio_iova(v, m->len);
	v->vmlck[0] = lp_vmlck_kb();
	t0 = lp_now_ns();
	ret = ioctl(v->container, VFIO_IOMMU_MAP_DMA, &map);
	a->pin_ns = (lp_now_ns() - t0) / (m->len / 4096.0);
	v->vmlck[1] = lp_vmlck_kb();
	if (ret) {
		a->result = -errno;
		a->pinned = 0;
		a->held = false;
		return LP_OK;
	}
	v->mapped = true;
	v->len = m->len;
	a->result = 0;
	a->pinned = m->len / 4096;
	a->held = true;
	return LP_OK;
}

static int vfio_unpin(struct pinner *p, struct mem *m, struct pin_answer *a)
{
	struct vfio *v = p->priv;
	struct vfio_iommu_type1_dma_unmap um = {
		.argsz = sizeof(um), .iova = v->iova, .size = m->len,
	};
	uint64_t t0;
	int ret;

	if (!v->mapped)
		return 0;
	t0 = lp_now_ns();
	ret = ioctl(v->container, VFIO_IOMMU_UNMAP_DMA, &um);
	a->unpin_ns = (lp_now_ns() - t0) / (m->len / 4096.0);
	if (ret) {
		/* the mapping and its pin stay: close() tries once more */
		ret = -errno;
		snprintf(a->note, sizeof(a->note), "VFIO_IOMMU_UNMAP_DMA: %s",
			 strerror(-ret));
		return ret;
	}
	if (um.size != m->len) {
		/* what stays mapped stays pinned: close() unmaps the rest */
		snprintf(a->note, sizeof(a->note),
			 "VFIO_IOMMU_UNMAP_DMA unmapped %llu of %zu bytes",
			 (unsigned long long)um.size, m->len);
		return -EIO;
	}
	v->mapped = false;
	a->held = false;
	snprintf(a->note, sizeof(a->note), "VmLck %ld -> %ld -> %ld kB at IOVA %#llx",
		 v->vmlck[0], v->vmlck[1], lp_vmlck_kb(),
		 (unsigned long long)v->iova);
	return 0;
}

const struct pinner_ops lp_pin_vfio_ops = {
	.open = vfio_open,
	.pin = vfio_pin,
	.unpin = vfio_unpin,
	.close = vfio_close,
	.pin_call = "VFIO_IOMMU_MAP_DMA",
	.cycle_call = "VFIO_IOMMU_MAP_DMA/VFIO_IOMMU_UNMAP_DMA",
	.readonly = true,
};
