// SPDX-License-Identifier: GPL-2.0
/*
 * Is a block device another's: a file system mounted on it or on one of
 * its partitions, a holder of either (device-mapper, md, bcache: their
 * holders/ in sysfs), or swap on either. --target-overwrite writes a
 * device only when none of these holds, and opens it O_EXCL, which the
 * kernel refuses while anything else claims it. The tests stand files in
 * for /sys, /proc/self/mountinfo and /proc/swaps (LONGPIN_TEST_SYSFS,
 * LONGPIN_TEST_MOUNTINFO, LONGPIN_TEST_SWAPS): a machine's own partitions
 * and swap are not a test's to make.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "longpin.h"

#define BLK_MAX_PARTS	64

/* The device and its partitions: their numbers, sysfs names and dirs. */
struct blk_set {
	size_t n;
	dev_t dev[BLK_MAX_PARTS + 1];
	char name[BLK_MAX_PARTS + 1][NAME_MAX + 1];
	char dir[PATH_MAX];		/* the device's: a partition's is dir/name */
};

static const char *test_path(const char *var, const char *real)
{
	const char *v = getenv(var);

	return v && *v ? v : real;
}

/* "8:1" in @path: the device number, or false. */
static bool read_devno(const char *path, dev_t *dev)
{
	unsigned int maj, min;
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%u:%u", &maj, &min) == 2;
	fclose(f);
	if (ok)
		*dev = makedev(maj, min);
	return ok;
}

/* @dev and its partitions, from sysfs: dev/block/MAJ:MIN and its children. */
static void blk_set_fill(struct blk_set *s, dev_t dev)
{
	const char *sys = test_path("LONGPIN_TEST_SYSFS", "/sys");
	char path[PATH_MAX + 300], real[PATH_MAX], *dir = s->dir;
	struct dirent *e;
	DIR *d;

	s->n = 1;
	s->dev[0] = dev;
	snprintf(dir, sizeof(s->dir), "%s/dev/block/%u:%u", sys, major(dev),
		 minor(dev));
	snprintf(s->name[0], sizeof(s->name[0]), "%u:%u", major(dev),
		 minor(dev));
	if (realpath(dir, real))
		snprintf(s->name[0], sizeof(s->name[0]), "%s",
			 strrchr(real, '/') + 1);
	d = opendir(dir);
	while (d && (e = readdir(d)) && s->n < ARRAY_SIZE(s->dev)) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/partition", dir, e->d_name);
		if (access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, e->d_name);
		if (!read_devno(path, &s->dev[s->n]))
			continue;
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", e->d_name);
		s->n++;
	}
	if (d)
		closedir(d);
}

static int blk_set_find(const struct blk_set *s, dev_t dev)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->dev[i] == dev)
			return i;
	return -1;
}

/* "it" for the device itself, "its partition NAME" for the others */
static void who(const struct blk_set *s, int i, char *buf, size_t n)
{
	if (i)
		snprintf(buf, n, "its partition %s", s->name[i]);
	else
		snprintf(buf, n, "it");
}

/* A holder in holders/ of the device or a partition. */
static bool blk_held(const struct blk_set *s, char *why, size_t n)
{
	char path[PATH_MAX * 2 + 16], w[NAME_MAX + 32];
	struct dirent *e = NULL;
	size_t i;
	DIR *d;

	for (i = 0; i < s->n; i++) {
		if (i)
			snprintf(path, sizeof(path), "%s/%s/holders", s->dir,
				 s->name[i]);
		else
			snprintf(path, sizeof(path), "%s/holders", s->dir);
		d = opendir(path);
		while (d && (e = readdir(d)) && e->d_name[0] == '.')
			;
		if (d && e) {
			who(s, i, w, sizeof(w));
			snprintf(why, n, "%s is held by %s (%s)", w, e->d_name,
				 path);
		}
		if (d)
			closedir(d);
		if (d && e)
			return true;
	}
	return false;
}

/* /proc/self/mountinfo's "\040" and the like, in place */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/*
 * A file system mounted on the device or a partition: by the mount's
 * device number, or by its source (btrfs shows a number of its own).
 */
static bool blk_mounted_on(const struct blk_set *s, char *why, size_t n)
{
	FILE *f = fopen(test_path("LONGPIN_TEST_MOUNTINFO",
				  "/proc/self/mountinfo"), "r");
	char line[4096], mnt[PATH_MAX], src[PATH_MAX], w[NAME_MAX + 32], *dash;
	unsigned int maj, min;
	struct stat st;
	bool found = false;
	int i = -1;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mnt) != 3)
			continue;
		i = blk_set_find(s, makedev(maj, min));
		dash = strstr(line, " - ");
		if (i < 0 && dash &&
		    sscanf(dash, " - %*s %4095s", src) == 1) {
			unescape(src);
			if (src[0] == '/' && !stat(src, &st) &&
			    S_ISBLK(st.st_mode))
				i = blk_set_find(s, st.st_rdev);
		}
		found = i >= 0;
	}
	if (f)
		fclose(f);
	if (found) {
		unescape(mnt);
		who(s, i, w, sizeof(w));
		snprintf(why, n, "%s is mounted on %s", w, mnt);
	}
	return found;
}

/* Swap on the device or a partition (/proc/swaps). */
static bool blk_swap(const struct blk_set *s, char *why, size_t n)
{
	const char *swaps = test_path("LONGPIN_TEST_SWAPS", "/proc/swaps");
	FILE *f = fopen(swaps, "r");
	char line[4096], name[PATH_MAX], w[NAME_MAX + 32];
	struct stat st;
	bool found = false;
	int i = -1;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%4095s", name) != 1 || name[0] != '/')
			continue;
		unescape(name);
		if (!stat(name, &st) && S_ISBLK(st.st_mode))
			i = blk_set_find(s, st.st_rdev);
		found = i >= 0;
	}
	if (f)
		fclose(f);
	if (found) {
		who(s, i, w, sizeof(w));
		snprintf(why, n, "%s is swap (%s)", w, swaps);
	}
	return found;
}

/*
 * Whether block device @dev is another's: mounted, held or swap, on it
 * or a partition; @why then says which, in words.
 */
bool lp_blk_in_use(dev_t dev, char *why, size_t n)
{
	struct blk_set s;

	blk_set_fill(&s, dev);
	return blk_mounted_on(&s, why, n) || blk_held(&s, why, n) ||
	       blk_swap(&s, why, n);
}
