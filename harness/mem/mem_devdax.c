// SPDX-License-Identifier: GPL-2.0
/*
 * devdax: a device-dax character device (--dev /dev/daxX.Y), MAP_SHARED;
 * anon+devdax: one buffer of private anon, then the device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mem.h"

/* /sys/dev/char/MAJ:MIN/ATTR as a number, or -1. */
static long long sysfs_dev_attr(dev_t rdev, const char *attr)
{
	char path[128], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/%s",
		 major(rdev), minor(rdev), attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 0);
}

static int devdax_check(const char *dev, dev_t rdev, size_t size)
{
	long long dsize = sysfs_dev_attr(rdev, "size");
	long long align = sysfs_dev_attr(rdev, "align");

	if (dsize < 0)
		return lp_err(LP_EUSAGE,
			      "--dev %s: no size in /sys/dev/char/%u:%u: is it a device-dax device (/dev/daxX.Y)?",
			      dev, major(rdev), minor(rdev));
	if (align <= 0)
		align = 2 * MiB;	/* 6.1 without the align attribute */
	if ((long long)size > dsize)
		return lp_err(LP_EUSAGE,
			      "--dev %s has %lld bytes, --size asks %zu: give --size %lldM or less",
			      dev, dsize, size, dsize / (long long)MiB);
	if (size % align)
		return lp_err(LP_EUSAGE,
			      "--size %zu is not a multiple of %s's alignment %lld: use a multiple of %lldK",
			      size, dev, align, align / (long long)KiB);
	return LP_OK;
}

/* Open --dev after checking that @size of it can be mapped. */
static int devdax_open(struct mem *m, const struct opts *o, size_t size)
{
	struct stat st;
	int ret;

	if (stat(o->dev, &st))
		return lp_err(LP_EUSAGE,
			      "--dev %s: %s: create a devdax namespace with `ndctl create-namespace -m devdax` and give its /dev/daxX.Y",
			      o->dev, strerror(errno));
	if (!S_ISCHR(st.st_mode))
		return lp_err(LP_EUSAGE,
			      "--dev %s is not a character device: give a device-dax node /dev/daxX.Y",
			      o->dev);
	ret = devdax_check(o->dev, st.st_rdev, size);
	if (ret != LP_OK)
		return ret;
	m->fd = open(o->dev, O_RDWR | O_CLOEXEC);
	if (m->fd < 0)
		return lp_err(LP_EUSAGE, "--dev %s: open: %s", o->dev,
			      strerror(errno));
	strcpy(m->fs_type, "devdax");
	return LP_OK;
}

static int devdax_setup(struct mem *m, const struct opts *o)
{
	int ret = devdax_open(m, o, o->size);

	if (ret != LP_OK)
		return ret;
	ret = lp_mem_map_fd(m, m->fd, o->size, MAP_SHARED);
	if (ret)
		return lp_err(LP_SKIP, "devdax: mmap of %s: %s", o->dev,
			      strerror(-ret));
	return LP_OK;
}

/*
 * Private anon, then the device from its start: the halves meet at an
 * address aligned like the device (2 MiB), so the size is checked as
 * twice the device part.
 */
static int anon_devdax_setup(struct mem *m, const struct opts *o)
{
	size_t half = o->size / 2;
	int ret = devdax_open(m, o, half);
	char *p;

	if (ret != LP_OK)
		return ret;
	if (o->size % (4 * MiB))
		return lp_err(LP_EUSAGE,
			      "anon+devdax: --size %zu is not a multiple of 4M (two halves aligned to the device's 2M): use %zuM",
			      o->size, (o->size / (4 * MiB) + 1) * 4);
	ret = lp_mem_map_anon(m, o->size, 2 * MiB, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS);
	if (ret)
		return lp_err(LP_SKIP, "anon+devdax: mmap: %s", strerror(-ret));
	p = m->addr;
	if (mmap(p + half, half, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 m->fd, 0) == MAP_FAILED)
		return lp_err(LP_SKIP, "anon+devdax: mmap of %s: %s", o->dev,
			      strerror(errno));
	return LP_OK;
}

static const struct mem_ops mem_devdax_ops = {
	.name = "devdax",
	.order = 160,
	.help = "a device-dax device (--dev /dev/daxX.Y) mapped MAP_SHARED",
	.map = "shared",
	.backing = "devdax",
	.place = PLACE_DEVDAX,
	.setup = devdax_setup,
};
MEM_REGISTER(mem_devdax_ops);

static const struct mem_ops mem_anon_devdax_ops = {
	.name = "anon+devdax",
	.order = 220,
	.help = "one buffer over two VMAs: private anon, then a device-dax device (--dev)",
	.map = "mixed",
	.backing = "anon+devdax",
	.place = PLACE_DEVDAX,
	.flags = MEM_MULTI,
	.setup = anon_devdax_setup,
};
MEM_REGISTER(mem_anon_devdax_ops);
