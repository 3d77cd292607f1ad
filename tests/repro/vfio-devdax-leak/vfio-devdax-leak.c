// SPDX-License-Identifier: GPL-2.0
/*
 * vfio-devdax-leak DEVDAX [GROUP]: map 2 MiB of anonymous memory, then 2 MiB
 * of a device-dax mapping, into a vfio type1 container
 * (VFIO_IOMMU_MAP_DMA, read-write) and unmap each, counting the pins the
 * kernel took and gave back (nr_foll_pin_acquired / _released in
 * /proc/vmstat). GROUP is a /dev/vfio/N of a device bound to vfio-pci
 * (default: the first one there).
 *
 * vfio's type1 backend pins with pin_user_pages_remote(FOLL_LONGTERM) and
 * unpins in put_pfn(), which skips a pfn that is_invalid_reserved_pfn()
 * calls reserved. ZONE_DEVICE pages are PageReserved, so every pin of a
 * devdax page is kept after the unmap: "devdax: acquired 512, released 0".
 *
 * Exit 0: both balance; 1: a leak (printed); 77: no vfio device, no
 * devdax or no counters here (the line says which); 2: usage.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define LEN	(2UL << 20)
#define IOVA	(1UL << 30)

/* @name in /proc/vmstat, the CPUs' pending deltas folded in first (root) */
static long vmstat(const char *name)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	char key[64];
	long v, found = -1;
	FILE *f;

	if (fd >= 0) {
		if (write(fd, "1", 1) < 0)
			perror("stat_refresh");
		close(fd);
	}
	f = fopen("/proc/vmstat", "r");

	while (f && fscanf(f, "%63s %ld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	if (f)
		fclose(f);
	return found;
}

static int skip(const char *why)
{
	printf("SKIP %s\n", why);
	return 77;
}

static int first_group(char *path, size_t n)
{
	struct dirent *d;
	DIR *dir = opendir("/dev/vfio");

	while (dir && (d = readdir(dir)))
		if (d->d_name[0] >= '0' && d->d_name[0] <= '9') {
			snprintf(path, n, "/dev/vfio/%s", d->d_name);
			closedir(dir);
			return 0;
		}
	if (dir)
		closedir(dir);
	return -1;
}

static int open_container(const char *gpath)
{
	struct vfio_group_status st = { .argsz = sizeof(st) };
	int c = open("/dev/vfio/vfio", O_RDWR), g = open(gpath, O_RDWR);

	if (c < 0 || g < 0 || ioctl(g, VFIO_GROUP_GET_STATUS, &st) ||
	    !(st.flags & VFIO_GROUP_FLAGS_VIABLE) ||
	    ioctl(g, VFIO_GROUP_SET_CONTAINER, &c) ||
	    ioctl(c, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return -1;
	return c;		/* the group stays open: the container needs it */
}

/* map @addr read-write, unmap it: the pins acquired and released */
static int map_unmap(int c, void *addr, const char *what)
{
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map), .vaddr = (unsigned long)addr,
		.iova = IOVA, .size = LEN,
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
	};
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap), .iova = IOVA, .size = LEN,
	};
	long a0 = vmstat("nr_foll_pin_acquired"), r0 = vmstat("nr_foll_pin_released");
	long a, r;

	if (ioctl(c, VFIO_IOMMU_MAP_DMA, &map)) {
		printf("%s: VFIO_IOMMU_MAP_DMA: %s\n", what, strerror(errno));
		return -1;
	}
	if (ioctl(c, VFIO_IOMMU_UNMAP_DMA, &unmap)) {
		printf("%s: VFIO_IOMMU_UNMAP_DMA: %s\n", what, strerror(errno));
		return -1;
	}
	a = vmstat("nr_foll_pin_acquired") - a0;
	r = vmstat("nr_foll_pin_released") - r0;
	printf("%s: %lu pages mapped and unmapped: nr_foll_pin acquired %ld, released %ld%s\n",
	       what, LEN / 4096, a, r, a == r ? "" : " (leak)");
	return a != r;
}

int main(int argc, char **argv)
{
	char gpath[300];
	void *anon, *dax;
	int c, fd, leak;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: vfio-devdax-leak DEVDAX [/dev/vfio/N]\n");
		return 2;
	}
	if (vmstat("nr_foll_pin_acquired") < 0)
		return skip("no nr_foll_pin_acquired in /proc/vmstat");
	if (argc == 3)
		snprintf(gpath, sizeof(gpath), "%s", argv[2]);
	else if (first_group(gpath, sizeof(gpath)))
		return skip("no vfio group in /dev/vfio: bind a device to vfio-pci");
	c = open_container(gpath);
	if (c < 0)
		return skip("cannot set up a type1 container on that group");
	fd = open(argv[1], O_RDWR);
	if (fd < 0)
		return skip("cannot open the devdax device");
	anon = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	dax = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (anon == MAP_FAILED || dax == MAP_FAILED)
		return skip("mmap of the buffers failed");
	memset(dax, 1, LEN);
	leak = map_unmap(c, anon, "anon");
	if (leak < 0)
		return 1;
	leak = map_unmap(c, dax, "devdax");
	return leak ? 1 : 0;
}
