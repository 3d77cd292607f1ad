// SPDX-License-Identifier: GPL-2.0
/*
 * The memory backends: one struct mem_ops per memory type, defined and
 * registered (MEM_REGISTER, mem.h) in the file of its backing:
 * mem_anon.c (anonymous memory and buffers made of anon and a hole or a
 * memfd), mem_shm.c (SysV), mem_memfd.c, mem_secretmem.c, mem_hugetlb.c,
 * mem_file.c (tmpfs, page-cache and fsdax files, and the buffers that end
 * in a shared file mapping) and mem_devdax.c. This file is the registry
 * (the types by .order: `longpin types`, and by what they are: their
 * place and flags) and what the backends share: the places a type's
 * memory comes from (--dir, --dev and their variables), size rules, setup
 * and teardown, prefaulting and its SIGBUS, temp files. A type's name is
 * a CSV key.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "mem.h"

/* every MEM_REGISTER()ed type (mem.h), in link order */
extern const struct mem_ops *const __start_lp_mem_types[];
extern const struct mem_ops *const __stop_lp_mem_types[];

static int by_order(const void *a, const void *b)
{
	const struct mem_ops *x = *(const struct mem_ops *const *)a;
	const struct mem_ops *y = *(const struct mem_ops *const *)b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The registered types by .order, once: NULL when out of memory. */
static const struct mem_ops *const *registry(size_t *n)
{
	static const struct mem_ops **sorted;
	static size_t count;

	if (!sorted) {
		count = __stop_lp_mem_types - __start_lp_mem_types;
		sorted = malloc(count * sizeof(*sorted));
		if (!sorted)
			return NULL;
		memcpy(sorted, __start_lp_mem_types, count * sizeof(*sorted));
		qsort(sorted, count, sizeof(*sorted), by_order);
	}
	*n = count;
	return sorted;
}

const struct mem_ops *lp_mem_find(const char *name)
{
	const struct mem_ops *ops;
	size_t i;

	for (i = 0; (ops = lp_mem_nth(i)); i++)
		if (!strcmp(ops->name, name))
			return ops;
	return NULL;
}

/* The @i-th memory type in --list's order, or NULL past the last. */
const struct mem_ops *lp_mem_nth(size_t i)
{
	const struct mem_ops *const *all;
	size_t n = 0;

	all = registry(&n);
	return all && i < n ? all[i] : NULL;
}

const struct mem_ops *lp_mem_find_like(enum mem_place place, unsigned int has,
				    unsigned int lacks)
{
	const struct mem_ops *ops;
	size_t i;

	for (i = 0; (ops = lp_mem_nth(i)); i++)
		if (ops->place == place && (ops->flags & has) == has &&
		    !(ops->flags & lacks))
			return ops;
	return NULL;
}

void lp_mem_list(void)
{
	const struct mem_ops *ops;
	size_t i;

	for (i = 0; (ops = lp_mem_nth(i)); i++)
		printf("%s\n", ops->name);
}

/*
 * The places a backend can need, each given once: the option, the
 * variable read when the option is absent, and a default. Scripts
 * (the guest's matrix, the tests) learn them from --list-types.
 */
struct mem_place_info {
	const char *what;	/* for messages: "no <what>" */
	const char *option;
	const char *env;
	const char *dflt;
};

static const struct mem_place_info places[] = {
	[PLACE_NONE] = { "-", "-", "-", NULL },
	[PLACE_PAGECACHE] = { "page-cache directory (ext4, xfs)", "--dir",
			      "LONGPIN_FILE_DIR", NULL },
	[PLACE_TMPFS] = { "tmpfs directory", "--dir", "LONGPIN_TMPFS_DIR",
			  "/dev/shm" },
	[PLACE_DAX] = { "DAX mount", "--dir", "LONGPIN_DAX_DIR", NULL },
	[PLACE_DEVDAX] = { "device-dax", "--dev", "LONGPIN_DEVDAX", NULL },
};

/* The place @p from the environment, else its default; NULL if none. */
static const char *place_env(enum mem_place p)
{
	const char *v = getenv(places[p].env);

	if (p == PLACE_NONE)
		return NULL;
	return v && *v ? v : places[p].dflt;
}

/* --dir or --dev, when not given, from the variable of @ops's place. */
void lp_mem_place_from_env(const struct mem_ops *ops, struct opts *o)
{
	const char **slot = ops->place == PLACE_DEVDAX ? &o->dev : &o->dir;

	if (ops->place != PLACE_NONE && !*slot)
		*slot = place_env(ops->place);
}

/*
 * --list-types: every type and what it is, tab-separated, for scripts:
 * the value column is where the place resolves now ("-": nowhere).
 */
void lp_mem_list_types(void)
{
	const struct mem_place_info *pi;
	const struct mem_ops *ops;
	const char *v;
	size_t i;

	printf("# memtype\tmap\tbacking\thuge\toption\tvariable\tvalue\tplace\n");
	for (i = 0; (ops = lp_mem_nth(i)); i++) {
		pi = &places[ops->place];
		v = place_env(ops->place);
		printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ops->name,
		       ops->map, ops->backing,
		       ops->flags & MEM_HUGETLB ? "hugetlb" :
		       ops->flags & MEM_THP ? "thp" : "-",
		       pi->option, pi->env, v ? v : "-", pi->what);
	}
}

void lp_mem_list_help(FILE *f, bool man)
{
	const struct mem_ops *ops;
	size_t i;

	for (i = 0; (ops = lp_mem_nth(i)); i++)
		lp_item_help(f, man, ops->name, ops->help);
}

/*
 * --dir or --dev given to a type that maps no file or no device: a path
 * that does not exist is an error, and one that does an option the run
 * would ignore.
 */
static int mem_check_unused(const struct mem_ops *ops, const struct opts *o)
{
	bool dev = ops->place == PLACE_DEVDAX;
	struct stat st;

	if (o->dir && (ops->place == PLACE_NONE || dev)) {
		if (stat(o->dir, &st))
			return lp_err(LP_EUSAGE,
				      "--dir %s: %s: give an existing directory",
				      o->dir, strerror(errno));
		return lp_err(LP_EUSAGE,
			      "memory type %s maps no file, so --dir would do nothing: drop it (the I/O target goes to $TMPDIR, or give --target)",
			      ops->name);
	}
	if (o->dev && !dev) {
		if (stat(o->dev, &st))
			return lp_err(LP_EUSAGE,
				      "--dev %s: %s: give an existing device",
				      o->dev, strerror(errno));
		return lp_err(LP_EUSAGE,
			      "memory type %s maps no device, so --dev would do nothing: drop it",
			      ops->name);
	}
	return LP_OK;
}

/* The directory or device that @ops needs, given or from its variable. */
static int mem_check_place(const struct mem_ops *ops, const struct opts *o)
{
	const struct mem_place_info *pi = &places[ops->place];
	const char *env = ops->place != PLACE_NONE ? getenv(pi->env) : NULL;
	const char *why = getenv("LONGPIN_NVDIMM_OFF");
	bool dax = ops->place == PLACE_DAX || ops->place == PLACE_DEVDAX;
	int ret = mem_check_unused(ops, o);

	if (ret != LP_OK)
		return ret;
	/*
	 * A variable set empty: this machine has no such place (a guest of a
	 * kernel without NVDIMMs, whose init says why in LONGPIN_NVDIMM_OFF):
	 * the type cannot run here, a skip with its reason, not a usage error
	 */
	if (env && !*env && !(ops->place == PLACE_DEVDAX ? o->dev : o->dir))
		return lp_err(LP_SKIP, "memory type %s: no %s here (%s is empty)%s%s",
			      ops->name, pi->what, pi->env,
			      dax && why && *why ? ": " : "",
			      dax && why && *why ? why : "");

	if (ops->place == PLACE_DEVDAX && !o->dev)
		return lp_err(LP_EUSAGE,
			      "memory type %s needs --dev /dev/daxX.Y (or %s): create a devdax namespace with `ndctl create-namespace -m devdax`",
			      ops->name, pi->env);
	if (ops->place != PLACE_NONE && ops->place != PLACE_DEVDAX && !o->dir)
		return lp_err(LP_EUSAGE,
			      "memory type %s needs --dir DIR on a %s (or %s): %s",
			      ops->name, pi->what, pi->env, ops->help);
	return LP_OK;
}

/* Size rules that hold before anything is mapped. */
int lp_mem_check_size(const struct mem_ops *ops, const struct opts *o, bool io)
{
	size_t pg = sysconf(_SC_PAGESIZE), huge;

	if (!o->size)
		return lp_err(LP_EUSAGE,
			      "--size 0: give a size of at least one page (%zu)",
			      pg);
	if (o->size % pg)
		return lp_err(LP_EUSAGE,
			      "--size %zu is not a multiple of the page size %zu: round it to %zuK",
			      o->size, pg, (o->size / pg + 1) * pg / KiB);
	/* the I/O check writes and reads back one --bs block at least */
	if (io && !(ops->flags & MEM_RDONLY) && o->size < o->bs)
		return lp_err(LP_EUSAGE,
			      "--size %zuK is smaller than --bs %zuK: give --size %zuK or more, a smaller --bs, or --no-io",
			      o->size / KiB, (size_t)o->bs / KiB,
			      (size_t)o->bs / KiB);
	huge = ops->flags & MEM_HUGETLB ? lp_hugepage_size() :
	       ops->flags & MEM_THP ? 2 * MiB : 0;
	if (huge && o->size % huge)
		return lp_err(LP_EUSAGE,
			      "--size %zu is not a multiple of %s's huge page size %zuK: use %zuM",
			      o->size, ops->name, huge / KiB,
			      (o->size / huge + 1) * huge / MiB);
	return mem_check_place(ops, o);
}

int lp_mem_setup(struct mem *m, const struct mem_ops *ops, const struct opts *o)
{
	const char *tmp = getenv("TMPDIR");
	int ret;

	memset(m, 0, sizeof(*m));
	m->ops = ops;
	m->fd = m->fill_fd = -1;
	m->dax = -1;
	strcpy(m->fs_type, "-");
	snprintf(m->target_dir, sizeof(m->target_dir), "%s",
		 tmp && *tmp ? tmp : "/tmp");
	ret = ops->flags & MEM_HUGETLB ? lp_mem_need_hugepages(ops->name, o->size) :
	      LP_OK;
	if (ret == LP_OK)
		ret = ops->setup(m, o);
	if (ret != LP_OK) {
		lp_mem_teardown(m);
		return ret;
	}
	if (o->inject && !strcmp(o->inject, "fill") && m->fd >= 0)
		m->fill_fd = lp_mem_fill_dir(m->target_dir);
	return ret;
}

void lp_mem_teardown(struct mem *m)
{
	if (m->shm)
		shmdt(m->shm);
	if (m->map)
		munmap(m->map, m->map_len);
	if (m->fd >= 0)
		close(m->fd);
	if (m->fill_fd >= 0)
		close(m->fill_fd);
	m->shm = m->map = m->addr = NULL;
	m->fd = m->fill_fd = -1;
}

/* where on_sigbus() returns to while lp_mem_touch() runs */
static sigjmp_buf *sigbus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(*sigbus_jmp, 1);
}

/*
 * Touch every 4 KiB of @m (a read, or a write of @pf), or return LP_SKIP
 * with the reason when a page cannot be backed: a file system or huge
 * page pool that ran out answers the touch with SIGBUS.
 */
int lp_mem_touch(struct mem *m, enum prefault pf)
{
	volatile char *p = m->addr;
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	volatile size_t i = 0;
	sigjmp_buf jmp;
	char sink = 0;
	int ret = LP_OK;

	sigemptyset(&sa.sa_mask);
	sigbus_jmp = &jmp;
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(jmp, 1)) {
		ret = lp_mem_sigbus_err(m, i);
		goto out;
	}
	for (i = 0; i < m->len; i += 4096) {
		if (pf == PF_READ)
			sink ^= p[i];
		else
			p[i] = (char)(i >> 12);
	}
	(void)sink;
out:
	sigaction(SIGBUS, &old, NULL);
	sigbus_jmp = NULL;
	return ret;
}

/* Touch every 4 KiB of the buffer: none, a read, or a write. */
int lp_mem_populate(struct mem *m, enum prefault pf)
{
	if (pf == PF_NONE)
		return 0;
	return lp_mem_touch(m, pf);
}

/*
 * Anonymous or hugetlb memory of @len at an address aligned to @align
 * (0: the page size).
 */
int lp_mem_map_anon(struct mem *m, size_t len, size_t align, int prot, int flags)
{
	size_t slack = align > 4096 ? align : 0;
	char *p, *a;

	p = mmap(NULL, len + slack, prot, flags, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a = slack ? (char *)(((uintptr_t)p + align - 1) & ~(align - 1)) : p;
	if (a > p)
		munmap(p, a - p);
	if (slack && a + len < p + len + slack)
		munmap(a + len, p + len + slack - (a + len));
	m->map = m->addr = a;
	m->map_len = m->len = len;
	return 0;
}

int lp_mem_map_fd(struct mem *m, int fd, size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	m->map = m->addr = p;
	m->map_len = m->len = len;
	return 0;
}

/* File system type and DAX state of an open file. */
void lp_mem_describe_fd(struct mem *m, int fd)
{
	struct statfs sfs;
	struct statx stx;

	if (!fstatfs(fd, &sfs))
		snprintf(m->fs_type, sizeof(m->fs_type), "%s",
			 lp_fs_name(sfs.f_type));
	if (!statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx))
		m->dax = !!(stx.stx_attributes & STATX_ATTR_DAX);
}

/* Free bytes for an unprivileged writer in the file system of @dir, or -1. */
long long lp_dir_free(const char *dir)
{
	struct statvfs vfs;

	if (statvfs(dir, &vfs))
		return -1;
	return (long long)vfs.f_bavail * vfs.f_frsize;
}

/*
 * --inject fill: take the free space of @dir's file system, as another
 * writer would after our check. The file is unlinked: closing @fd (at
 * exit at the latest) gives the space back.
 */
int lp_mem_fill_dir(const char *dir)
{
	char path[PATH_MAX];
	off_t off = 0, step;
	int fd;

	snprintf(path, sizeof(path), "%s/longpin.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	for (step = 1 << 30; step >= 4096; step /= 2)
		while (!fallocate(fd, 0, off, step))
			off += step;
	return fd;
}

/* The SIGBUS at byte @at of @m's buffer, explained. */
int lp_mem_sigbus_err(const struct mem *m, size_t at)
{
	long long avail;

	if (m->ops->flags & MEM_HUGETLB)
		return lp_err(LP_SKIP,
			      "%s: SIGBUS at page %zu of %zu: no free huge page left: reserve more (vm.nr_hugepages) or give a smaller --size",
			      m->ops->name, at / 4096, m->len / 4096);
	avail = m->fd >= 0 ? lp_dir_free(m->target_dir) : -1;
	if (avail >= 0)
		return lp_err(LP_SKIP,
			      "%s: SIGBUS at page %zu of %zu: the file system of %s is full (%lld kB free, the buffer needs %zu kB): free space there or give another --dir",
			      m->ops->name, at / 4096, m->len / 4096,
			      m->target_dir, avail / (long long)KiB, m->len / KiB);
	return lp_err(LP_SKIP, "%s: SIGBUS at page %zu of %zu: the memory could not be backed",
		      m->ops->name, at / 4096, m->len / 4096);
}

/*
 * A file of @len in @dir, already unlinked so that nothing is left
 * behind whatever happens to this process; its fd goes in m->fd.
 */
int lp_mem_tmpfile(struct mem *m, const char *dir, size_t len)
{
	char path[PATH_MAX];
	long long avail = lp_dir_free(dir);
	struct statvfs vfs;
	struct stat st;
	int fd;

	if (stat(dir, &st))
		return lp_err(LP_EUSAGE,
			      "--dir %s: %s: give an existing directory",
			      dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return lp_err(LP_EUSAGE,
			      "--dir %s: not a directory: give a directory",
			      dir);
	/* before the free space, which a read-only file system may lack */
	if (!statvfs(dir, &vfs) && (vfs.f_flag & ST_RDONLY))
		return lp_err(LP_EUSAGE,
			      "--dir %s is on a read-only file system: give a writable directory",
			      dir);
	if (access(dir, W_OK | X_OK))
		return lp_err(LP_EUSAGE,
			      "--dir %s: %s: give a writable directory", dir,
			      strerror(errno));
	/* a file the pages cannot back would SIGBUS at the first touch */
	if (avail >= 0 && avail < (long long)len)
		return lp_err(LP_SKIP,
			      "--dir %s has %lld kB free, the buffer needs %zu kB: give a larger file system or a smaller --size",
			      dir, avail / (long long)KiB, len / KiB);
	snprintf(path, sizeof(path), "%s/longpin.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return lp_err(LP_EUSAGE,
			      "--dir %s: cannot create a file: %s: give a writable directory",
			      dir, strerror(errno));
	unlink(path);
	m->fd = fd;
	lp_mem_describe_fd(m, fd);
	if (ftruncate(fd, len))
		return lp_err(LP_SKIP, "--dir %s: cannot size a file to %zu bytes: %s",
			      dir, len, strerror(errno));
	snprintf(m->target_dir, sizeof(m->target_dir), "%s", dir);
	return LP_OK;
}

/*
 * The first half of a buffer made of two parts: @size / 2 rounded down to a
 * page, or a usage error when a part would be empty.
 */
int lp_mem_half(const char *name, size_t size, size_t *half)
{
	*half = size / 2 & ~(size_t)4095;
	if (*half < 4096)
		return lp_err(LP_EUSAGE,
			      "%s: --size %zu is under two pages: give at least 8K",
			      name, size);
	return LP_OK;
}

/*
 * The huge pages a hugetlb mapping can still have: free and not reserved
 * by another mapping (-1: this kernel has none). The one statement of
 * it: the tests and the guest's fio.sh ask `longpin hugepages`.
 */
long lp_hugepages_free(void)
{
	long free_pages = lp_meminfo_kb("HugePages_Free:");

	return free_pages < 0 ? -1 : free_pages - lp_meminfo_kb("HugePages_Rsvd:");
}

/* hugetlb pages must be free (and not reserved) before we map them. */
int lp_mem_need_hugepages(const char *name, size_t len)
{
	long avail = lp_hugepages_free();
	long rsvd = lp_meminfo_kb("HugePages_Rsvd:");
	long total = lp_meminfo_kb("HugePages_Total:");
	size_t hps = lp_hugepage_size();
	long need = len / hps;

	if (avail < 0)
		return lp_err(LP_SKIP,
			      "%s: this kernel has no hugetlb pages (CONFIG_HUGETLBFS): use a kernel with it",
			      name);
	if (rsvd > total)
		return lp_err(LP_FAIL,
			      "%s: HugePages_Rsvd reads %ld, above HugePages_Total %ld: the kernel's hugetlb reservation count underflowed (a kernel bug; a torture run's hugetlb_rsvd_delta shows which run): reboot the machine",
			      name, rsvd, total);
	if (avail >= need)
		return LP_OK;
	return lp_err(LP_SKIP,
		      "%s needs %ld free %zu kB huge pages, %ld are free: reserve them as root with `echo %ld > /proc/sys/vm/nr_hugepages`",
		      name, need, hps / KiB, avail, total + need - avail);
}
