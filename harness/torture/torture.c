// SPDX-License-Identifier: GPL-2.0
/*
 * longpin torture --mem TYPE: every operation of torture_ops.c that
 * applies to TYPE in its own thread on one buffer for --seconds; every
 * registration and update answer judged against the contract and the
 * race answers, every fixed I/O round checked, pins balanced at the end;
 * one row in its own CSV (schema torture-1). See docs/lifetime-and-torture.md, "Torture".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "torture.h"

const char *const tt_cnt_names[TC_NR] = {
#define TT_NAME(id, name) name,
	TT_COUNTERS(TT_NAME)
#undef TT_NAME
};

/*
 * Count @c; an operation begun past the deadline (a thread finishing the
 * first choices seq_hash covers) is counted in late_ops too, so that the
 * operations of the seconds asked can be told from them.
 */
void tt_count(struct tt *t, enum tt_cnt c)
{
	__atomic_add_fetch(&t->cnt[c], 1, __ATOMIC_RELAXED);
	if (c < TC_REG_OK && now_ns() >= t->deadline)
		__atomic_add_fetch(&t->late, 1, __ATOMIC_RELAXED);
}

/*
 * The memory types --torture applies to: every one, as the reg thread
 * runs on each (the other threads' why_not() leave some out); whether
 * one can be set up here is the run's to say (exit 77).
 */
int torture_list(void)
{
	const struct mem_ops *ops;
	size_t i;

	for (i = 0; (ops = mem_nth(i)); i++)
		printf("%s\n", ops->name);
	return LP_OK;
}

/* The first few failures, "; " separated, for the row's note. */
void tt_note(struct tt *t, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	pthread_mutex_lock(&t->lock);
	len = strlen(t->note);
	if (len + 2 < sizeof(t->note)) {
		if (len) {
			strcpy(t->note + len, "; ");
			len += 2;
		}
		va_start(ap, fmt);
		vsnprintf(t->note + len, sizeof(t->note) - len, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&t->lock);
}

/*
 * Go on: until the deadline, and in any case until the thread made the
 * first choices that seq_hash covers, so that two runs of one seed hash
 * the same choices however slowly a loaded machine ran them.
 */
bool tt_more(const struct tt_thr *h)
{
	return now_ns() < h->t->deadline || h->nseq < TT_SEQ_OPS;
}

/* A content-changing op (its writes may reach pinned pages) runs. */
void tt_chg_begin(struct tt *t)
{
	__atomic_add_fetch(&t->chg_active, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&t->chg, 1, __ATOMIC_SEQ_CST);
}

void tt_chg_end(struct tt *t)
{
	__atomic_add_fetch(&t->chg, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&t->chg_active, 1, __ATOMIC_SEQ_CST);
}

/* An op that may leave a range unmapped, read-only or past EOF runs. */
void tt_lay_begin(struct tt *t)
{
	__atomic_add_fetch(&t->lay_active, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&t->lay, 1, __ATOMIC_SEQ_CST);
}

void tt_lay_end(struct tt *t)
{
	__atomic_add_fetch(&t->lay, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&t->lay_active, 1, __ATOMIC_SEQ_CST);
}

struct tt_snap tt_snap_take(struct tt *t)
{
	return (struct tt_snap){
		.lay = __atomic_load_n(&t->lay, __ATOMIC_SEQ_CST),
		.lay_active = __atomic_load_n(&t->lay_active, __ATOMIC_SEQ_CST),
	};
}

/* Did such an op run during the call that began at @s? */
static bool raced(struct tt *t, const struct tt_snap *s)
{
	return s->lay_active || __atomic_load_n(&t->lay, __ATOMIC_SEQ_CST) != s->lay;
}

/*
 * LONGPIN_TEST_FAULT=reg-efault: every registration and update answers
 * -EFAULT (what took is dropped), as a kernel refusing the type would.
 */
int tt_reg_fault(struct tt_thr *h, int ret)
{
	if (!lp_test_fault("reg-efault"))
		return ret;
	if (!ret)
		io_uring_unregister_buffers(&h->ring);
	return -EFAULT;
}

static bool contract_says(const struct tt *t, int ret)
{
	unsigned int i;

	for (i = 0; i < t->nanswers; i++)
		if (t->answers[i] == ret)
			return true;
	return false;
}

/*
 * A registration or slot update that began at @s answered @ret: the
 * contract's answer for TYPE (0: ok, else refused), -EFAULT when an op
 * that may leave part of the range unmapped, read-only or past EOF ran
 * during that very call (raced), else bad.
 */
void tt_judge_reg(struct tt_thr *h, int ret, const char *what,
		  const struct tt_snap *s)
{
	struct tt *t = h->t;

	if (t->unchecked || contract_says(t, ret)) {
		tt_count(t, ret ? TC_REG_REFUSED : TC_REG_OK);
		return;
	}
	if (ret == -EFAULT && t->efault_race && raced(t, s)) {
		tt_count(t, TC_REG_RACED);
		return;
	}
	/* the first bad answer is noted; reg_bad counts them all */
	if (__atomic_add_fetch(&t->cnt[TC_REG_BAD], 1, __ATOMIC_SEQ_CST) == 1)
		tt_note(t, "%s answered %s (reg_bad counts every bad answer)",
			what, ret ? errno_name(ret) : "0");
}

/* The contract's answers for TYPE at every prefault (they may differ). */
static void answers_of(struct tt *t, const struct contract *c)
{
	bool nofault;
	int pf, err;

	t->unchecked = true;
	for (pf = 0; pf < PF_NR; pf++) {
		if (!contract_lookup(c, t->ops->name, pf, t->len, &err, &nofault))
			continue;
		t->unchecked = false;
		/* the buffer is written before the threads start */
		if (pf == PF_WRITE)
			t->reg_expected = !err;
		if (!contract_says(t, err))
			t->answers[t->nanswers++] = err;
	}
}

/* A free range for mremap to move to, aligned for THPs and huge pages. */
static int spare_reserve(struct tt *t)
{
	size_t align = t->gran > 2 * MiB ? t->gran : 2 * MiB, n;
	char *p, *a;

	n = t->len / t->gran / 4;
	t->spare_len = (n ? n : 1) * t->gran;
	p = mmap(NULL, t->spare_len + align, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + t->spare_len, p + align - a);
	t->spare = a;
	return 0;
}

/* The I/O target: 2 x io_len, unlinked at once, O_DIRECT if it can. */
static int target_open(struct tt *t)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/longpin-target.XXXXXX",
		     t->m.target_dir) >= (int)sizeof(path))
		return lp_err(LP_EUSAGE, "--torture: the path %s is too long",
			      t->m.target_dir);
	t->tfd = mkstemp(path);
	if (t->tfd < 0)
		return lp_err(LP_EUSAGE, "--torture: cannot create %s: %s",
			      path, strerror(errno));
	unlink(path);
	fcntl(t->tfd, F_SETFL, O_DIRECT);
	if (ftruncate(t->tfd, 2 * t->io_len))
		return lp_err(LP_SKIP, "--torture: cannot size the I/O target in %s: %s",
			      t->m.target_dir, strerror(errno));
	return LP_OK;
}

/* Smallest range an op takes: a huge page, devdax's 2 MiB, else 4 KiB. */
static size_t granule(const struct mem_ops *ops)
{
	if (ops->flags & MEM_HUGETLB)
		return hugepage_size();
	if (ops->place == PLACE_DEVDAX)
		return 2 * MiB;
	return 4096;
}

static int tt_setup(struct tt *t)
{
	struct io_uring ring;
	int ret;

	/* io_uring missing or disabled: the one-line error of the other modes */
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret)
		return ring_init_err(ret);
	io_uring_queue_exit(&ring);
	t->gran = granule(t->ops);
	if (t->o->size / t->gran < 4)
		return lp_err(LP_EUSAGE,
			      "--torture on %s needs --size of 4 granules of %zuK at least: give --size %zuK",
			      t->ops->name, t->gran / KiB, 4 * t->gran / KiB);
	ret = mem_setup(&t->m, t->ops, t->o);
	if (ret != LP_OK)
		return ret;
	t->mem_up = true;
	t->base = t->m.addr;
	t->len = t->m.len;
	ret = (t->ops->populate ? t->ops->populate : mem_populate)(&t->m, PF_WRITE);
	if (ret != LP_OK)
		return ret;
	t->io_len = t->len / 4 < 64 * KiB ? t->len / 4 : 64 * KiB;
	t->io_len &= ~(size_t)4095;
	t->shared = strcmp(t->ops->map, "private");
	t->root = !geteuid();
	answers_of(t, t->c);
	ret = target_open(t);
	if (ret != LP_OK)
		return ret;
	if (spare_reserve(t))
		return lp_err(LP_SKIP, "--torture: no room for mremap: %s",
			      strerror(errno));
	return LP_OK;
}

/* Unmap and close all the run set up; again: nothing. */
static void tt_teardown(struct tt *t)
{
	if (t->spare)
		munmap(t->spare, t->spare_len);
	if (t->tfd >= 0)
		close(t->tfd);
	if (t->mem_up)
		mem_teardown(&t->m);
	t->spare = NULL;
	t->tfd = -1;
	t->mem_up = false;
}

/* Is @name in the comma list @list (NULL: every op)? */
static bool op_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	if (!list)
		return true;
	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

/* "reg, io, remap, ...": the operations, in the order of their threads */
static const char *op_names(char *buf, size_t n)
{
	const struct tt_op *op;
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; (op = tt_op_nth(i)) && len < n; i++)
		len += snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
				op->name);
	return buf;
}

/* The operations, for longpin torture --help and the manual page. */
void torture_more(FILE *f, bool man)
{
	char names[160], text[256];

	snprintf(text, sizeof(text), "%s; one thread each that applies to TYPE (--ops: a subset).",
		 op_names(names, sizeof(names)));
	items_head(f, man, "Operations");
	item_help(f, man, "--ops", text);
}

/* --ops LIST: every name an op; returns LP_OK or a usage error. */
static int ops_check(const struct tt *t)
{
	char list[256], names[160], *tok, *save = NULL;
	const struct tt_op *op;
	size_t i;

	if (!t->o->torture_ops)
		return LP_OK;
	snprintf(list, sizeof(list), "%s", t->o->torture_ops);
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; (op = tt_op_nth(i)) && strcmp(op->name, tok); i++)
			;
		if (!op)
			return lp_err(LP_EUSAGE,
				      "--ops %s: no operation %s: give a comma list of %s",
				      t->o->torture_ops, tok, op_names(names, sizeof(names)));
		if (op->why_not && op->why_not(t))
			return lp_err(LP_SKIP, "--ops %s: %s does not apply to %s: %s",
				      t->o->torture_ops, tok, t->ops->name,
				      op->why_not(t));
	}
	return LP_OK;
}

/* The threads: every listed op that applies to TYPE. */
static size_t threads_pick(struct tt *t, struct tt_thr *h, char *names,
			   size_t n)
{
	const struct tt_op *op;
	size_t i, k = 0;

	names[0] = '\0';
	for (i = 0; (op = tt_op_nth(i)) && k < TT_MAX_THREADS; i++) {
		if (!op_listed(t->o->torture_ops, op->name) ||
		    (op->why_not && op->why_not(t)))
			continue;
		h[k] = (struct tt_thr){ .t = t, .op = op, .idx = i };
		t->efault_race |= op->efault_race;
		snprintf(names + strlen(names), n - strlen(names), "%s%s",
			 k ? ";" : "", op->name);
		k++;
	}
	return k;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static void *thr_main(void *arg)
{
	struct tt_thr *h = arg;

	while (tt_more(h)) {
		h->op->step(h);
		h->iters++;
	}
	return NULL;
}

/* Start every thread, wait for all; returns the number that ran. */
static size_t threads_run(struct tt *t, struct tt_thr *h, size_t n,
			  uint64_t seed)
{
	size_t i, started = 0;
	int ret = 0;

	for (i = 0; i < n; i++) {
		/* by the op's place in the table: --ops keeps its sequence */
		h[i].rng = splitmix64(seed + h[i].idx) | 1;
		ret = h[i].op->init ? h[i].op->init(&h[i]) : 0;
		if (ret) {
			tt_count(t, TC_HARNESS_ERR);
			tt_note(t, "%s: setup: %s", h[i].op->name, errno_name(ret));
			n = i + 1;	/* this one and those after it do not run */
			break;
		}
	}
	t->deadline = now_ns() + t->o->seconds * 1000000000ULL;
	/* LONGPIN_TEST_FAULT=torture-deadline: a run of 0 s (util.c) */
	if (lp_test_fault("torture-deadline"))
		t->deadline = now_ns();
	for (i = 0; i < n && !ret; i++) {
		if (pthread_create(&h[i].th, NULL, thr_main, &h[i]))
			break;
		started++;
	}
	if (!ret && started < n) {
		tt_count(t, TC_HARNESS_ERR);
		tt_note(t, "only %zu of %zu threads started", started, n);
		t->deadline = 0;
	}
	for (i = 0; i < started; i++)
		pthread_join(h[i].th, NULL);
	for (i = 0; i < n; i++)
		if (h[i].op->fini)
			h[i].op->fini(&h[i]);
	return started;
}

/* The CSV header (schema torture-1): the counters' columns are theirs. */
static const char *tt_header(void)
{
	static char hdr[1024];
	size_t len;
	int i;

	if (hdr[0])
		return hdr;
	len = snprintf(hdr, sizeof(hdr), "%s",
		       "schema,timestamp,kernel,contract,accel,memtype,fs_type,size,seconds,seed,seq_hash,threads,ops");
	for (i = 0; i < TC_NR; i++)
		len += snprintf(hdr + len, sizeof(hdr) - len, ",%s",
				tt_cnt_names[i]);
	snprintf(hdr + len, sizeof(hdr) - len, "%s",
		 ",late_ops,answers,vmpin_leak_kb,foll_pin_delta,hugetlb_rsvd_delta,kernel_reports,verdict,note\n");
	return hdr;
}

/* After the run: what nr_foll_pin acquired minus released grew by. */
static long pin_delta(long acq0, long rel0)
{
	long acq, rel, d = 0;
	int i;

	for (i = 0; i < 10; i++) {
		if (vmstat_pins(&acq, &rel))
			return LONG_MIN;
		d = (acq - acq0) - (rel - rel0);
		if (!d)
			break;
		/* an unpin still in flight (6.1 releases from a worker) */
		usleep(100000);
	}
	return d;
}

/* The accepted answers as "0|-EFAULT": the contract's, then the race's. */
static void answers_str(const struct tt *t, char *buf, size_t n)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	if (t->unchecked) {
		snprintf(buf, n, "-");
		return;
	}
	for (i = 0; i < t->nanswers; i++)
		len += snprintf(buf + len, n - len, "%s%s%s", i ? "|" : "",
				t->answers[i] ? "-" : "",
				t->answers[i] ? errno_name(t->answers[i]) : "0");
	if (t->efault_race && !contract_says(t, -EFAULT))
		snprintf(buf + len, n - len, "|-EFAULT(race)");
}

struct tt_end {
	/* before the run: VmPin, nr_foll_pin, HugePages_Rsvd (-1: not
	 * judged), /dev/kmsg (-1: not read) */
	long vmpin0, acq0, rel0, rsvd0;
	int kmsg;
	uint64_t seed, seq;
	const char *names;
	size_t threads;
	long leak, delta;
	long rsvd;			/* HugePages_Rsvd after - before */
	long reports;			/* kernel reports meanwhile, -1: not read */
	const char *verdict;
};

/* @v with @fmt when @known, else @none (a figure the run could not take) */
static void put_opt(FILE *f, const char *fmt, long v, bool known,
		    const char *none)
{
	if (known)
		fprintf(f, fmt, v);
	else
		fputs(none, f);
}

static void put_row(FILE *f, const struct tt *t, const struct tt_end *e)
{
	char ts[32], ans[96];
	time_t now = time(NULL);
	const char *p;
	int i;

	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	answers_str(t, ans, sizeof(ans));
	fprintf(f, "torture-1,%s,%s,%s,%s,%s,%s,%zu,%u,%llu,%016llx,%zu,%s",
		ts, kernel_release(), t->c ? contract_name(t->c) : "-",
		cpu_accel(), t->ops->name, t->m.fs_type, t->len,
		t->o->seconds, (unsigned long long)e->seed,
		(unsigned long long)e->seq, e->threads, e->names);
	for (i = 0; i < TC_NR; i++)
		fprintf(f, ",%lu", t->cnt[i]);
	fprintf(f, ",%lu,%s,%ld", t->late, ans, e->leak);
	put_opt(f, ",%ld", e->delta, e->delta != LONG_MIN, ",-");
	put_opt(f, ",%ld", e->rsvd, e->rsvd != LONG_MIN, ",-");
	put_opt(f, ",%ld", e->reports, e->reports >= 0, ",-");
	fprintf(f, ",%s,", e->verdict);
	for (p = t->note; *p; p++)
		fputc(*p == ',' ? ';' : *p == '\n' ? ' ' : *p, f);
	fputc('\n', f);
}

/* The summary: every counter, the balance and the verdict. */
static void summary(FILE *f, const struct tt *t, const struct tt_end *e)
{
	char sz[32];
	int i;

	fmt_size(sz, sizeof(sz), t->len);
	fprintf(f, "torture %s %s %u s seed %llu, threads %s\n", t->ops->name,
		sz, t->o->seconds, (unsigned long long)e->seed, e->names);
	fputs("  ops:     ", f);
	for (i = 0; i < TC_REG_OK; i++)
		fprintf(f, " %s %lu", tt_cnt_names[i], t->cnt[i]);
	fprintf(f, " (late %lu)", t->late);
	fputs("\n  outcomes:", f);
	for (i = TC_REG_OK; i < TC_NR; i++)
		fprintf(f, " %s %lu", tt_cnt_names[i], t->cnt[i]);
	fprintf(f, "\n  VmPin leak %ld kB, nr_foll_pin acquired-released ", e->leak);
	put_opt(f, "%+ld", e->delta, e->delta != LONG_MIN, "not judged");
	put_opt(f, ", HugePages_Rsvd %+ld", e->rsvd, e->rsvd != LONG_MIN,
		", HugePages_Rsvd not judged");
	put_opt(f, ", kernel reports %ld", e->reports, e->reports >= 0,
		", kernel log not read (not root)");
	fprintf(f, "\n  verdict %s%s%s\n", e->verdict, t->note[0] ? ": " : "",
		t->note);
}

static int tt_write(const struct tt *t, const struct tt_end *e)
{
	char *text = NULL;
	size_t len;
	FILE *m;
	int ret;

	if (!t->o->quiet)
		summary(t->o->csv && !strcmp(t->o->csv, "-") ? stderr : stdout,
			t, e);
	if (!t->o->csv)
		return LP_OK;
	m = open_memstream(&text, &len);
	if (!m)
		return lp_err(LP_EUSAGE, "out of memory");
	put_row(m, t, e);
	if (fclose(m)) {
		free(text);
		return lp_err(LP_EUSAGE, "out of memory");
	}
	ret = csv_append_text(t->o->csv, tt_header(), text);
	free(text);
	return ret;
}

/*
 * HugePages_Rsvd as the kernel's unsigned count, taken as signed: a
 * count taken below 0 (18446744073709551615) reads -1. LONG_MIN: absent.
 */
static long rsvd_now(void)
{
	char line[128];
	unsigned long v;
	long r = LONG_MIN;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return LONG_MIN;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Rsvd: %lu", &v) == 1)
			r = (long)v;
	fclose(f);
	return r;
}

/*
 * After the teardown: what HugePages_Rsvd grew by since before the
 * setup (a hugetlb reservation leaked; below 0 it fell, underflowed
 * counts too); retried for 1 s, as an unpin may still be in flight.
 */
static long rsvd_delta(long rsvd0)
{
	long d = 0;
	int i;

	for (i = 0; i < 10; i++) {
		d = rsvd_now() - rsvd0;
		if (!d)
			break;
		usleep(100000);
	}
	return d;
}

/*
 * HugePages_Rsvd fell over a run: it reads below @before, or above the
 * @total of huge pages (a count taken below 0 reads huge).
 */
bool rsvd_fell(long before, long after, long total)
{
	return after < before || after > total;
}

/*
 * Can hugetlb-truncate-race explain a fall of HugePages_Rsvd by @fell?
 * Each race gives one page's reservation back twice, and only a page a
 * truncation cut off can race: at most @cut, the pages cut.
 */
bool rsvd_explained(long fell, long cut)
{
	return fell > 0 && fell <= cut;
}

/*
 * A run's verdict: "fail" when anything is wrong (@bad) or HugePages_Rsvd
 * moved (@rsvd_moved) other than by a known kernel defect (@rsvd_known);
 * "defect" when that defect is all; else "unchecked" (no contract row
 * for TYPE's answers) or "pass".
 */
const char *tt_verdict(bool bad, bool rsvd_moved, bool rsvd_known,
		       bool unchecked)
{
	if (bad || (rsvd_moved && !rsvd_known))
		return "fail";
	if (rsvd_moved)
		return "defect";
	return unchecked ? "unchecked" : "pass";
}

/*
 * The contract's name for HugePages_Rsvd's fall of @e when that known
 * defect explains it: hugetlb-truncate-race, a truncation racing a
 * fault on a reserved page, gives that page's reservation back twice,
 * so the fall is at most the huge pages the run's truncations cut off.
 * Else NULL, the fall a failure; the note says which.
 */
static const char *rsvd_defect(struct tt *t, const struct tt_end *e)
{
	const char *name = contract_torture_rsvd(t->c, t->ops->name);
	long fell = -e->rsvd, cut = t->trunc_pages;

	if (!name || !rsvd_fell(e->rsvd0, e->rsvd0 + e->rsvd,
				meminfo_kb("HugePages_Total:")))
		return NULL;
	if (rsvd_explained(fell, cut)) {
		tt_note(t, "HugePages_Rsvd fell by %ld: the known kernel defect %s (a truncation racing a fault on a reserved huge page gives its reservation back twice), which the %lu truncations here, cutting %ld huge pages, can explain",
			fell, name, t->cnt[TC_TRUNCATE], cut);
		return name;
	}
	tt_note(t, "HugePages_Rsvd fell by %ld, more than the %ld huge pages that the %lu truncations cut off: not the known defect %s",
		fell, cut, t->cnt[TC_TRUNCATE], name);
	return NULL;
}

/*
 * Judge the run after its threads and the teardown: pins and hugetlb
 * reservations back, no bad answer, no kernel report.
 */
static int tt_finish(struct tt *t, const struct tt_thr *h, size_t n,
		     struct tt_end *e)
{
	bool reg_threads = false, none_ok;
	char report[200];
	const char *known;
	unsigned int took;
	bool moved;
	size_t i;
	int ret;

	for (i = 0, e->seq = 0xcbf29ce484222325ULL; i < n; i++)
		e->seq = (e->seq ^ h[i].seq) * 0x100000001B3ULL;
	e->leak = vmpin_wait(e->vmpin0, 2000, &took) - e->vmpin0;
	e->delta = e->acq0 < 0 ? LONG_MIN : pin_delta(e->acq0, e->rel0);
	e->rsvd = e->rsvd0 < 0 ? LONG_MIN : rsvd_delta(e->rsvd0);
	if (e->leak)
		tt_note(t, "pin leak: VmPin %+ld kB", e->leak);
	if (e->delta && e->delta != LONG_MIN)
		tt_note(t, "nr_foll_pin acquired - released %+ld", e->delta);
	if (e->rsvd && e->rsvd != LONG_MIN)
		tt_note(t, "HugePages_Rsvd %+ld after the teardown", e->rsvd);
	e->reports = e->kmsg < 0 ? -1 :
		     kmsg_reports(e->kmsg, report, sizeof(report));
	if (e->reports > 0)
		tt_note(t, "%ld kernel reports, the first: %s", e->reports, report);
	moved = e->rsvd && e->rsvd != LONG_MIN;
	known = moved ? rsvd_defect(t, e) : NULL;
	/* where TYPE registers, the run must show that it did */
	for (i = 0; i < n; i++)
		reg_threads |= !strcmp(h[i].op->name, "reg") ||
			       !strcmp(h[i].op->name, "io");
	none_ok = reg_threads && t->reg_expected && !t->cnt[TC_REG_OK];
	if (none_ok)
		tt_note(t, "no registration succeeded in %lu (the contract lets %s register): the run tested nothing pinned",
			t->cnt[TC_REG] + t->cnt[TC_UPD], t->ops->name);
	e->verdict = tt_verdict(none_ok || t->cnt[TC_REG_BAD] || t->cnt[TC_IO_BAD] ||
				t->cnt[TC_HARNESS_ERR] || e->leak ||
				e->reports > 0 ||
				(e->delta && e->delta != LONG_MIN),
				moved, known, t->unchecked);
	ret = tt_write(t, e);
	if (ret != LP_OK)
		return ret;
	return !strcmp(e->verdict, "fail") ? LP_FAIL : LP_OK;
}

/* Without --size: 4 MiB, or 4 granules where a granule is 2 MiB or more. */
size_t torture_default_size(const struct mem_ops *ops)
{
	return 4 * granule(ops) > 4 * MiB ? 4 * granule(ops) : 4 * MiB;
}

int torture_run(const struct mem_ops *ops, const struct opts *o,
		const struct contract *c)
{
	struct tt t = { .o = o, .c = c, .ops = ops, .tfd = -1 };
	struct tt_thr h[TT_MAX_THREADS];
	uint64_t seed = opt_given(o, OPT_SEED) ? o->seed :
			splitmix64(now_ns() ^ (uint64_t)getpid() << 32);
	char names[160];
	struct tt_end e = { .acq0 = -1, .rel0 = -1, .rsvd0 = -1, .kmsg = -1 };
	size_t n;
	int ret;

	pthread_mutex_init(&t.layout, NULL);
	pthread_mutex_init(&t.lock, NULL);
	/* system-wide, like nr_foll_pin: not judged beside other pinners */
	if (!o->concurrent)
		e.rsvd0 = rsvd_now();
	ret = csv_check(o->csv, tt_header());
	if (ret == LP_OK)
		ret = tt_setup(&t);
	if (ret == LP_OK)
		ret = ops_check(&t);
	if (ret != LP_OK)
		goto out;
	fprintf(stderr, "longpin: torture seed %llu\n", (unsigned long long)seed);
	n = threads_pick(&t, h, names, sizeof(names));
	e.seed = seed;
	e.names = names;
	e.threads = n;
	e.vmpin0 = vmpin_kb();
	if (!o->concurrent && t.root && vmstat_pins(&e.acq0, &e.rel0))
		e.acq0 = e.rel0 = -1;
	e.kmsg = kmsg_open();
	threads_run(&t, h, n, seed);
	tt_teardown(&t);
	ret = tt_finish(&t, h, n, &e);
out:
	tt_teardown(&t);
	return ret;
}
