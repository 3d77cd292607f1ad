// SPDX-License-Identifier: GPL-2.0
/* devdax: a device-dax character device (--dev /dev/daxX.Y), MAP_SHARED. */
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

#include "mem_ops.h"

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

static int devdax_setup(struct mem *m, const struct opts *o)
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
	ret = devdax_check(o->dev, st.st_rdev, o->size);
	if (ret != LP_OK)
		return ret;
	m->fd = open(o->dev, O_RDWR | O_CLOEXEC);
	if (m->fd < 0)
		return lp_err(LP_EUSAGE, "--dev %s: open: %s", o->dev,
			      strerror(errno));
	ret = mem_map_fd(m, m->fd, o->size, MAP_SHARED);
	if (ret)
		return lp_err(LP_SKIP, "devdax: mmap of %s: %s", o->dev,
			      strerror(-ret));
	strcpy(m->fs_type, "devdax");
	return LP_OK;
}

const struct mem_ops mem_devdax_ops = {
	.name = "devdax",
	.help = "a device-dax device (--dev /dev/daxX.Y) mapped MAP_SHARED",
	.flags = MEM_NEEDS_DEV,
	.setup = devdax_setup,
};
