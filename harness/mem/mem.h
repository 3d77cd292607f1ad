/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory types: one struct mem_ops per type, defined by its backend
 * and registered where it is defined with MEM_REGISTER(): the registry
 * (mem.c) finds every registered type in the linker section lp_mem_types
 * and lists them by .order, their place in `longpin types` and in the
 * CSV. What a type is (its MEM_* flags) decides which lifetime cases,
 * torture threads and fio memory it stands for, so that adding a memory
 * type is its backend file and its contract rows, nothing else
 * (docs/adding-a-memory-type.md).
 */
#ifndef LONGPIN_MEM_H
#define LONGPIN_MEM_H

#include <stdio.h>
#include <sys/shm.h>

#include "longpin.h"

/*
 * Where a backend's memory comes from when it is not the kernel's alone:
 * a directory (--dir) or a device (--dev), else the variable of the place
 * (mem.c's places[], which scripts read with longpin --list-types).
 */
enum mem_place {
	PLACE_NONE,		/* anonymous, SysV, memfd, hugetlb: nothing */
	PLACE_PAGECACHE,	/* --dir on a page-cache file system */
	PLACE_TMPFS,		/* --dir on tmpfs, default /dev/shm */
	PLACE_DAX,		/* --dir on a file system mounted -o dax */
	PLACE_DEVDAX,		/* --dev /dev/daxX.Y */
};

/*
 * What a backend's buffer is. A flag says it of every page of the
 * buffer: a type made of several VMAs (MEM_MULTI) has only the flags
 * that hold for all of them.
 */
enum {
	MEM_HUGETLB	= 1 << 2,	/* size multiple of the hugetlb page */
	MEM_THP		= 1 << 3,	/* size multiple of the PMD size */
	MEM_RDONLY	= 1 << 4,	/* the CPU cannot write the buffer */
	MEM_FILE	= 1 << 5,	/* backed by a file in --dir */
	MEM_MULTI	= 1 << 6,	/* one buffer over several VMAs (or a hole) */
	/* MAP_PRIVATE: a forked child's writes go to a copy of its own */
	MEM_PRIVATE	= 1 << 7,
	/*
	 * private anonymous memory, not hugetlb: reclaim swaps it out, and
	 * MADV_FREE frees it lazily
	 */
	MEM_ANON	= 1 << 8,
	/*
	 * a MAP_SHARED mapping of a whole shmem file (m->fd): truncating
	 * it, or punching a hole, takes the buffer's pages from the file
	 */
	MEM_SHMEM_FILE	= 1 << 9,
	MEM_SYSV	= 1 << 10,	/* SysV shared memory (shmget, shmat) */
};

/* One buffer of one memory type, set up by a backend. */
struct mem {
	const struct mem_ops *ops;
	void *addr;			/* the buffer handed to the pinner */
	size_t len;
	void *map;			/* what teardown unmaps */
	size_t map_len;
	void *shm;			/* SysV attach address, if any */
	int fd;				/* backing file or device, or -1 */
	char fs_type[24];		/* of the backing file, or "-" */
	int dax;			/* STATX_ATTR_DAX of it: 1, 0, -1 n/a */
	char target_dir[PATH_MAX];	/* where a default I/O target goes */
	int fill_fd;			/* --inject fill's file, or -1 */
};

struct mem_ops {
	const char *name;
	unsigned int order;	/* its place in `longpin types` and the CSV */
	const char *help;
	const char *map;	/* private, shared or mixed (two VMAs) */
	const char *backing;	/* anon, shmem, hugetlb, page-cache, dax, ... */
	enum mem_place place;
	unsigned int flags;	/* MEM_HUGETLB: free huge pages checked first */
	unsigned long arg;	/* setup()'s own: mmap, memfd, shm flags, ... */
	int (*setup)(struct mem *m, const struct opts *o);
	/* optional: defaults to lp_mem_populate() */
	int (*populate)(struct mem *m, enum prefault pf);
};

#define MEM_REGISTER(ops)						\
	static const struct mem_ops *const mem_reg_##ops		\
	__attribute__((used, section("lp_mem_types"),			\
		       aligned(sizeof(void *)))) = &(ops)

/* mem.c: the registry of backends and what they share */
const struct mem_ops *lp_mem_find(const char *name);
const struct mem_ops *lp_mem_nth(size_t i);
/*
 * The first type, in the order of `longpin types`, of @place whose flags
 * hold all of @has and none of @lacks: what another tool's memory is to
 * longpin (fio's mem=), or NULL
 */
const struct mem_ops *lp_mem_find_like(enum mem_place place, unsigned int has,
				    unsigned int lacks);
void lp_mem_list(void);
void lp_mem_list_types(void);
void lp_mem_place_from_env(const struct mem_ops *ops, struct opts *o);
/* @io: the run's I/O checks at least one --bs block */
int lp_mem_check_size(const struct mem_ops *ops, const struct opts *o, bool io);
/* huge pages of the default size free and not reserved (-1: none here) */
long lp_hugepages_free(void);
void lp_mem_list_help(FILE *f, bool man);
int lp_mem_setup(struct mem *m, const struct mem_ops *ops, const struct opts *o);
void lp_mem_teardown(struct mem *m);
int lp_mem_populate(struct mem *m, enum prefault pf);
int lp_mem_touch(struct mem *m, enum prefault pf);
int lp_mem_sigbus_err(const struct mem *m, size_t at);
int lp_mem_fill_dir(const char *dir);
long long lp_dir_free(const char *dir);
int lp_mem_map_anon(struct mem *m, size_t len, size_t align, int prot, int flags);
int lp_mem_map_fd(struct mem *m, int fd, size_t len, int flags);
int lp_mem_tmpfile(struct mem *m, const char *dir, size_t len);
void lp_mem_describe_fd(struct mem *m, int fd);
int lp_mem_need_hugepages(const char *name, size_t len);
int lp_mem_half(const char *name, size_t size, size_t *half);
/*
 * mem_file.c: the place of a file on @fs (statx DAX: @dax), the place of
 * the file types that map it; PLACE_NONE where none does (hugetlbfs, ramfs)
 */
enum mem_place lp_mem_file_place(const char *fs, int dax);

#endif
