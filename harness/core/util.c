// SPDX-License-Identifier: GPL-2.0
/* Small helpers: errors, sizes, errno names, time. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "longpin.h"

/* Print "longpin: MESSAGE" on stderr, one line, and return @code. */
/* the last error's line, for the skip row of a case that could not run */
static char last_err[320];

int lp_err(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_err, sizeof(last_err), fmt, ap);
	va_end(ap);
	fprintf(stderr, "longpin: %s\n", last_err);
	return code;
}

const char *lp_last_err(void)
{
	return last_err;
}

void lp_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("longpin: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * LONGPIN_TEST_FAULT=NAME[,NAME...]: faults that only the tests inject, to
 * see that the judging names them (tests/host/lifetime.sh):
 *   short-read  --lifetime: the I/O target is cut to half of the first
 *               data check before the case runs: a READ_FIXED of the
 *               whole check completes short
 *   pin-leak    --lifetime: a second ring registers the buffer before the
 *               case and keeps it until after the leak check
 *   unreg-fail  --lifetime: lp_lt_unreg() unregisters, then answers what the
 *               kernel says to a second unregistration (-ENXIO)
 *   reg-efault-calm  --torture: every other whole-buffer registration of
 *               the reg thread is made while no op that changes the
 *               layout can run (t->layout held) and answers -EFAULT: no
 *               race excuses it (tests/host/torture.sh reg-efault-calm)
 *   torture-pin-leak  --torture: a ring of its own registers the buffer
 *               after the threads and keeps it until the run is judged
 *               (tests/host/torture.sh pin-leak)
 *   torture-deadline  --torture: the deadline passes as the threads
 *               start, a run of 0 s (tests/host/torture.sh floor)
 *   compact-slow  --torture: each compaction of the thp thread takes a
 *               second longer (tests/host/torture.sh compact-slow)
 *   mem-short   lifetime limits: MemAvailable reads 0 kB, so the rows that
 *               would pin 64 MiB or more skip (tests/host/lifetime.sh)
 * Is @name among them?
 */
bool lp_test_fault(const char *name)
{
	const char *s = getenv("LONGPIN_TEST_FAULT");
	size_t n = strlen(name);

	for (; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, name, n) && (s[n] == ',' || !s[n]))
			return true;
	return false;
}

/* "4096", "64K", "64M", "1G": returns 0, or -EINVAL / -ERANGE. */
int lp_parse_size(const char *s, size_t *out)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (toupper((unsigned char)*end)) {
	case 'K': mult = KiB; end++; break;
	case 'M': mult = MiB; end++; break;
	case 'G': mult = GiB; end++; break;
	case '\0': break;
	default: return -EINVAL;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	if (v > SIZE_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

void lp_fmt_size(char *buf, size_t n, size_t bytes)
{
	if (bytes && !(bytes % GiB))
		snprintf(buf, n, "%zuG", bytes / GiB);
	else if (bytes && !(bytes % MiB))
		snprintf(buf, n, "%zuM", bytes / MiB);
	else if (bytes && !(bytes % KiB))
		snprintf(buf, n, "%zuK", bytes / KiB);
	else
		snprintf(buf, n, "%zu", bytes);
}

const char *lp_errno_name(int err)
{
	const char *s;

	if (err < 0)
		err = -err;
	if (!err)
		return "-";
	if (err == LP_REFUSED)
		return "REFUSED";
	if (err == LP_PARTIAL)
		return "PARTIAL";
	/* glibc names ENOTSUP and EOPNOTSUPP alike; say what kernels say */
	if (err == EOPNOTSUPP)
		return "EOPNOTSUPP";
	s = strerrorname_np(err);
	return s ? s : "E?";
}

/* What a file of mode @mode is, in words: "a block device", ... */
const char *lp_file_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

/*
 * @path made absolute with its symlinks followed, also where it or its
 * last symlink's target does not exist yet (the file a create would
 * make): into @out. Returns false when its directory cannot be resolved.
 */
static bool canon_path(const char *path, char *out)
{
	char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX], *slash;
	const char *base;
	ssize_t n;
	int i;

	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return false;
	for (i = 0; i < 16; i++) {
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			break;
		link[n] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] != '/' && slash)
			snprintf(slash + 1, sizeof(cur) - (slash + 1 - cur),
				 "%s", link);
		else
			snprintf(cur, sizeof(cur), "%s", link);
	}
	slash = strrchr(cur, '/');
	base = slash ? slash + 1 : cur;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - cur) : 1,
		 slash ? (slash == cur ? "/" : cur) : ".");
	if (!realpath(dir, link))
		return false;
	return snprintf(out, PATH_MAX, "%s/%s", strcmp(link, "/") ? link : "",
			base) < PATH_MAX;
}

/*
 * Do @a and @b name one file: the same inode where both exist, else the
 * same place once symlinks are followed (the file a create of either
 * would make).
 */
bool lp_same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	struct stat sa, sb;

	if (!stat(a, &sa) && !stat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return canon_path(a, ra) && canon_path(b, rb) && !strcmp(ra, rb);
}

/* "EFAULT" -> EFAULT; 0 if unknown. */
int lp_errno_from_name(const char *name)
{
	int e;

	if (!strcmp(name, "EOPNOTSUPP") || !strcmp(name, "ENOTSUP"))
		return EOPNOTSUPP;
	if (!strcmp(name, "REFUSED"))
		return LP_REFUSED;
	if (!strcmp(name, "PARTIAL"))
		return LP_PARTIAL;
	for (e = 1; e < 4096; e++) {
		const char *s = strerrorname_np(e);

		if (s && !strcmp(s, name))
			return e;
	}
	return 0;
}

/*
 * The entry of a table of @n entries of @size bytes at @base whose name
 * (the const char * at @off in each) is @name, or NULL.
 */
const void *lp_table_find(const void *base, size_t n, size_t size, size_t off,
		       const char *name)
{
	const char *e = base;
	size_t i;

	for (i = 0; i < n; i++, e += size)
		if (!strcmp(*(const char *const *)(e + off), name))
			return e;
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* min, median (the mean of the middle two when @n is even), max; sorts @v */
struct stat3 lp_stat3_of(double *v, unsigned int n)
{
	struct stat3 s = { 0, 0, 0 };

	if (!n)
		return s;
	qsort(v, n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return s;
}

/* Append @word, the @i-th of @count, to a list "a", "a or b", "a, b or c". */
void lp_list_add(char *buf, size_t n, size_t i, size_t count, const char *word)
{
	size_t len = strlen(buf);

	if (len < n)
		snprintf(buf + len, n - len, "%s%s",
			 !i ? "" : i + 1 < count ? ", " : " or ", word);
}

/* A pattern that differs at every 8-byte offset and from seed to seed. */
void lp_pattern_fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t *p = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		p[i] = (i * 0x9E3779B97F4A7C15ULL) ^ seed;
}

uint64_t lp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const char *const pf_names[PF_NR] = { "none", "read", "write" };

const char *lp_prefault_name(enum prefault pf)
{
	return pf < PF_NR ? pf_names[pf] : "?";
}

/* "write", "none,read", "all" -> bit mask; -EINVAL on a bad word. */
int lp_prefault_parse(const char *s, unsigned int *mask)
{
	char buf[64], *tok, *save = NULL;
	int i;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	*mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			*mask |= (1u << PF_NR) - 1;
			continue;
		}
		for (i = 0; i < PF_NR; i++)
			if (!strcmp(tok, pf_names[i]))
				break;
		if (i == PF_NR)
			return -EINVAL;
		*mask |= 1u << i;
	}
	return *mask ? 0 : -EINVAL;
}

size_t lp_hugepage_size(void)
{
	long kb = lp_meminfo_kb("Hugepagesize:");

	return kb > 0 ? (size_t)kb * KiB : 2 * MiB;
}

static const struct { long magic; const char *name; } fs_names[] = {
	{ 0xEF53, "ext4" },
	{ 0x58465342, "xfs" },
	{ 0x01021994, "tmpfs" },
	{ 0x958458f6, "hugetlbfs" },
	{ 0x9123683E, "btrfs" },
	{ 0x794c7630, "overlay" },
	{ 0xF2F52010, "f2fs" },
	{ 0x6969, "nfs" },
	{ 0x01021997, "9p" },
	{ 0x858458f6, "ramfs" },
	{ 0x62656572, "sysfs" },
	{ 0x1373, "devtmpfs" },
	{ 0x5345434d, "secretmem" },
};

const char *lp_fs_name(long magic)
{
	static char unknown[24];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fs_names); i++)
		if (fs_names[i].magic == magic)
			return fs_names[i].name;
	snprintf(unknown, sizeof(unknown), "0x%lx", magic);
	return unknown;
}

/*
 * What runs this CPU, from CPUID: "none" without the hypervisor bit (bare
 * metal), "tcg" for QEMU's emulator, "kvm", "hyperv", "xen", "vmware",
 * "bhyve", or "vm" for another hypervisor; "unknown" off x86. Only under
 * "tcg" are instructions emulated: MiB/s measured there are not hardware
 * figures. Asked once (CPUID traps to the hypervisor), not per CSV row.
 */
static const char *cpu_accel_probe(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static const struct { const char sig[13]; const char *name; } sigs[] = {
		{ "TCGTCGTCGTCG", "tcg" }, { "KVMKVMKVM\0\0\0", "kvm" },
		{ "Microsoft Hv", "hyperv" }, { "XenVMMXenVMM", "xen" },
		{ "VMwareVMware", "vmware" }, { "bhyve bhyve ", "bhyve" },
	};
	unsigned int a, b, c, d;
	char sig[12];
	size_t i;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return "none";
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		if (!memcmp(sig, sigs[i].sig, sizeof(sig)))
			return sigs[i].name;
	return "vm";
#else
	return "unknown";
#endif
}

const char *lp_cpu_accel(void)
{
	static const char *accel;

	if (!accel)
		accel = cpu_accel_probe();
	return accel;
}

/*
 * Progress of a long phase on stderr, fio-like, only when stderr is a
 * terminal and the phase has run for 2 s: "longpin: anon: register/unregister
 * cycles [45%] 4500/10000, 3.1 s, eta 4 s". Redrawn at most every 0.25 s and
 * erased at the end, so that the table and logs stay clean.
 */
void lp_progress_begin(struct progress *p, const char *what, const char *phase,
		    unsigned long total)
{
	memset(p, 0, sizeof(*p));
	p->on = isatty(STDERR_FILENO) && total;
	p->what = what;
	p->phase = phase;
	p->total = total;
	p->t0 = lp_now_ns();
}

void lp_progress_step(struct progress *p, unsigned long done)
{
	uint64_t now;
	double el;

	if (!p->on)
		return;
	now = lp_now_ns();
	el = (now - p->t0) / 1e9;
	if (el < 2 || now - p->last < 250000000ULL || !done)
		return;
	p->last = now;
	p->shown = true;
	fprintf(stderr, "\rlongpin: %s: %s [%lu%%] %lu/%lu, %.1f s, eta %.0f s \033[K",
		p->what, p->phase, done * 100 / p->total, done, p->total, el,
		el * (p->total - done) / done);
}

void lp_progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->on = p->shown = false;
}
