// SPDX-License-Identifier: GPL-2.0
/*
 * File mappings: tmpfs-{shared,private} (shmem), file-{shared,private}
 * (page cache of --dir) and fsdax-{shared,private} (a DAX file in --dir).
 * The kind of file is checked, not assumed: fs type from fstatfs(),
 * DAX from statx() STATX_ATTR_DAX.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>

#include "mem_ops.h"

enum file_kind { FK_TMPFS, FK_PAGECACHE, FK_DAX };

static bool fs_is_shmem(const char *fs)
{
	return !strcmp(fs, "tmpfs") || !strcmp(fs, "hugetlbfs") ||
	       !strcmp(fs, "ramfs");
}

static int file_kind_check(const struct mem *m, const char *dir,
			   enum file_kind kind, const char *name)
{
	switch (kind) {
	case FK_TMPFS:
		if (strcmp(m->fs_type, "tmpfs"))
			return lp_err(LP_EUSAGE,
				      "%s: --dir %s is %s, not tmpfs: give a tmpfs directory (default /dev/shm)",
				      name, dir, m->fs_type);
		break;
	case FK_PAGECACHE:
		if (fs_is_shmem(m->fs_type))
			return lp_err(LP_EUSAGE,
				      "%s: --dir %s is %s, not a page-cache filesystem: give a directory on ext4 or xfs, or use tmpfs-%s",
				      name, dir, m->fs_type, strchr(name, '-') + 1);
		if (m->dax == 1)
			return lp_err(LP_EUSAGE,
				      "%s: files in --dir %s are DAX: use fsdax-%s, or a mount without -o dax",
				      name, dir, strchr(name, '-') + 1);
		break;
	case FK_DAX:
		if (m->dax != 1)
			return lp_err(LP_EUSAGE,
				      "%s: a file in --dir %s (%s) is not DAX (statx has no STATX_ATTR_DAX): give a directory on a pmem filesystem mounted with -o dax",
				      name, dir, m->fs_type);
		break;
	}
	return LP_OK;
}

static int file_setup(struct mem *m, const struct opts *o,
		      enum file_kind kind, int flags, const char *name)
{
	const char *dir = o->dir ? o->dir : "/dev/shm";
	int ret = mem_tmpfile(m, dir, o->size);

	if (ret != LP_OK)
		return ret;
	ret = file_kind_check(m, dir, kind, name);
	if (ret != LP_OK)
		return ret;
	ret = mem_map_fd(m, m->fd, o->size, flags);
	if (ret)
		return lp_err(LP_SKIP, "%s: mmap of a %s file: %s", name,
			      m->fs_type, strerror(-ret));
	return LP_OK;
}

#define FILE_BACKEND(ident, str, kind, mflags, fl, text)		\
static int ident##_setup(struct mem *m, const struct opts *o)		\
{									\
	return file_setup(m, o, kind, mflags, str);			\
}									\
const struct mem_ops mem_##ident##_ops = {				\
	.name = str,							\
	.help = text,							\
	.flags = MEM_FILE | (fl),					\
	.setup = ident##_setup,						\
}

FILE_BACKEND(tmpfs_shared, "tmpfs-shared", FK_TMPFS, MAP_SHARED, 0,
	     "a tmpfs file mapped MAP_SHARED (--dir, default /dev/shm)");
FILE_BACKEND(tmpfs_private, "tmpfs-private", FK_TMPFS, MAP_PRIVATE, 0,
	     "a tmpfs file mapped MAP_PRIVATE (--dir, default /dev/shm)");
FILE_BACKEND(file_shared, "file-shared", FK_PAGECACHE, MAP_SHARED,
	     MEM_NEEDS_DIR, "a page-cache file in --dir mapped MAP_SHARED");
FILE_BACKEND(file_private, "file-private", FK_PAGECACHE, MAP_PRIVATE,
	     MEM_NEEDS_DIR, "a page-cache file in --dir mapped MAP_PRIVATE");
FILE_BACKEND(fsdax_shared, "fsdax-shared", FK_DAX, MAP_SHARED,
	     MEM_NEEDS_DIR, "a file on a DAX mount (--dir) mapped MAP_SHARED");
FILE_BACKEND(fsdax_private, "fsdax-private", FK_DAX, MAP_PRIVATE,
	     MEM_NEEDS_DIR, "a file on a DAX mount (--dir) mapped MAP_PRIVATE");
