// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a torture run: what it left behind (VmPin, nr_foll_pin,
 * HugePages_Rsvd, kernel reports), its verdict, and its row in its own
 * CSV (schema torture-1) and summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "torture.h"

const char *const lp_tt_cnt_names[TC_NR] = {
#define TT_NAME(id, name) name,
	TT_COUNTERS(TT_NAME)
#undef TT_NAME
};

/* The CSV header (schema torture-1): the counters' columns are theirs. */
const char *lp_tt_header(void)
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
				lp_tt_cnt_names[i]);
	snprintf(hdr + len, sizeof(hdr) - len, "%s",
		 ",late_ops,answers,vmpin_leak_kb,foll_pin_delta,hugetlb_rsvd_delta,kernel_reports,verdict,note\n");
	return hdr;
}

/*
 * After the run: what nr_foll_pin acquired minus released grew by over
 * its pin window (core/pins.c), LONG_MIN when it is not judged: not
 * root, --concurrent, or other pinners moved the counters (@foreign, the
 * note says how much), which leaves the run unchecked, never failed.
 * Fewer acquired than the run's own registrations that held fails it.
 */
static long pin_delta(struct tt *t, bool *foreign, bool *short_pins)
{
	struct lp_pins *w = &t->pins;

	switch (lp_pins_end(w)) {
	case LP_PINS_BALANCED:
	case LP_PINS_LEAK:
		return w->acq - w->rel;
	case LP_PINS_SHORT:
		*short_pins = true;
		lp_tt_note(t, "%s", w->why);
		return LONG_MIN;
	case LP_PINS_FOREIGN:
		*foreign = true;
		lp_tt_note(t, "nr_foll_pin not judged: %s", w->why);
		return LONG_MIN;
	default:
		return LONG_MIN;
	}
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
				t->answers[i] ? lp_errno_name(t->answers[i]) : "0");
	if (t->efault_race && !lp_tt_contract_says(t, -EFAULT))
		snprintf(buf + len, n - len, "|-EFAULT(race)");
}

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
		ts, lp_kernel_release(), t->c ? lp_contract_name(t->c) : "-",
		lp_cpu_accel(), t->ops->name, t->m.fs_type, t->len,
		t->o->seconds, (unsigned long long)e->seed,
		(unsigned long long)e->seq, e->threads, e->names);
	for (i = 0; i < TC_NR; i++)
		fprintf(f, ",%lu", t->cnt[i]);
	fprintf(f, ",%lu,%s,%ld", t->late, ans, e->leak);
	put_opt(f, ",%ld", e->delta, e->delta != LONG_MIN, ",-");
	put_opt(f, ",%ld", e->rsvd, e->rsvd != LONG_MIN, ",-");
	put_opt(f, ",%ld", e->reports, e->reports >= 0, ",-");
	fprintf(f, ",%s,", lp_verdict_name(e->verdict));
	for (p = t->note; *p; p++)
		fputc(*p == ',' ? ';' : *p == '\n' ? ' ' : *p, f);
	fputc('\n', f);
}

/* The summary: every counter, the balance and the verdict. */
static void summary(FILE *f, const struct tt *t, const struct tt_end *e)
{
	char sz[32];
	int i;

	lp_fmt_size(sz, sizeof(sz), t->len);
	fprintf(f, "torture %s %s %u s seed %llu, threads %s\n", t->ops->name,
		sz, t->o->seconds, (unsigned long long)e->seed, e->names);
	fputs("  ops:     ", f);
	for (i = 0; i < TC_REG_OK; i++)
		fprintf(f, " %s %lu", lp_tt_cnt_names[i], t->cnt[i]);
	fprintf(f, " (late %lu)", t->late);
	fputs("\n  outcomes:", f);
	for (i = TC_REG_OK; i < TC_NR; i++)
		fprintf(f, " %s %lu", lp_tt_cnt_names[i], t->cnt[i]);
	fprintf(f, "\n  VmPin leak %ld kB, nr_foll_pin acquired-released ", e->leak);
	put_opt(f, "%+ld", e->delta, e->delta != LONG_MIN, "not judged");
	put_opt(f, ", HugePages_Rsvd %+ld", e->rsvd, e->rsvd != LONG_MIN,
		", HugePages_Rsvd not judged");
	put_opt(f, ", kernel reports %ld", e->reports, e->reports >= 0,
		", kernel log not read (not root)");
	fprintf(f, "\n  verdict %s%s%s\n", lp_verdict_name(e->verdict),
		t->note[0] ? ": " : "", t->note);
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
	ret = lp_csv_append_text(t->o->csv, lp_tt_header(), text);
	free(text);
	return ret;
}

/*
 * HugePages_Rsvd as the kernel's unsigned count, taken as signed: a
 * count taken below 0 (18446744073709551615) reads -1. LONG_MIN: absent.
 */
long lp_rsvd_now(void)
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
		d = lp_rsvd_now() - rsvd0;
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
bool lp_rsvd_fell(long before, long after, long total)
{
	return after < before || after > total;
}

/*
 * Can hugetlb-truncate-race explain a fall of HugePages_Rsvd by @fell?
 * Each race gives one page's reservation back twice, and only a
 * reservation a truncation gave back can be given back twice: at most
 * @resv, what the run's truncations can have given back (lp_trunc_resv()).
 */
bool lp_rsvd_explained(long fell, long resv)
{
	return fell > 0 && fell <= resv;
}

/*
 * What one truncation can have given back twice. The race (a fault on a
 * reserved page that the truncation finds empty, and gives the page's
 * reservation back while the fault consumes it) needs a page the
 * truncation cut that held no page: at most @cut granules less the
 * @freed ones it took out of the file. And the truncation gave each such
 * reservation back, so HugePages_Rsvd fell across it by as many at least
 * (@fell), where that reading is the truncation's own (@fell_known: no op
 * that reserves ran meanwhile); a fault that consumed a reservation
 * meanwhile only adds to the fall.
 */
long lp_trunc_resv(long cut, long freed, long fell, bool fell_known)
{
	long holes = cut - (freed > 0 ? freed : 0);

	if (holes < 0)
		holes = 0;
	if (fell_known && fell < holes)
		holes = fell > 0 ? fell : 0;
	return holes;
}

/*
 * A run's verdict: "fail" when anything is wrong (@bad) or HugePages_Rsvd
 * moved (@rsvd_moved) other than by a known kernel defect (@rsvd_known);
 * "defect" when that defect is all; else "unchecked" (no contract row
 * for TYPE's answers) or "pass".
 */
enum lp_verdict lp_tt_verdict(bool bad, bool rsvd_moved, bool rsvd_known,
			      bool unchecked)
{
	if (bad || (rsvd_moved && !rsvd_known))
		return LP_VERDICT_FAIL;
	if (rsvd_moved)
		return LP_VERDICT_DEFECT;
	return unchecked ? LP_VERDICT_UNCHECKED : LP_VERDICT_PASS;
}

/*
 * The contract's name for HugePages_Rsvd's fall of @e when that known
 * defect explains it: hugetlb-truncate-race, a truncation racing a
 * fault on a reserved page, gives that page's reservation back twice,
 * so the fall is at most the reservations the run's truncations gave
 * back of pages they cut while those held none (t->trunc_resv). Else
 * NULL, the fall a failure; the note says which.
 */
static const char *rsvd_defect(struct tt *t, const struct tt_end *e)
{
	const char *name = lp_contract_torture_rsvd(t->c, t->ops->name);
	long fell = -e->rsvd, resv = t->trunc_resv;

	if (!name || !lp_rsvd_fell(e->rsvd0, e->rsvd0 + e->rsvd,
				lp_meminfo_kb("HugePages_Total:")))
		return NULL;
	if (lp_rsvd_explained(fell, resv)) {
		lp_tt_note(t, "HugePages_Rsvd fell by %ld: the known kernel defect %s (a truncation racing a fault on a reserved huge page gives its reservation back twice), which the %lu truncations here, giving back at most %ld reservations of pages they cut while those held none, can explain",
			fell, name, t->cnt[TC_TRUNCATE], resv);
		return name;
	}
	lp_tt_note(t, "HugePages_Rsvd fell by %ld, more than the %ld reservations that the %lu truncations can have given back of pages they cut while those held none: not the known defect %s",
		fell, resv, t->cnt[TC_TRUNCATE], name);
	return NULL;
}

/*
 * Judge the run after its threads and the teardown: pins and hugetlb
 * reservations back, no bad answer, no kernel report.
 */
int lp_tt_finish(struct tt *t, const struct tt_thr *h, size_t n,
		     struct tt_end *e)
{
	bool reg_threads = false, none_ok, foreign = false, short_pins = false;
	char report[200];
	const char *known;
	unsigned int took;
	bool moved;
	size_t i;
	int ret;

	for (i = 0, e->seq = 0xcbf29ce484222325ULL; i < n; i++)
		e->seq = (e->seq ^ h[i].seq) * 0x100000001B3ULL;
	e->leak = lp_vmpin_wait(e->vmpin0, 2000, &took) - e->vmpin0;
	e->delta = pin_delta(t, &foreign, &short_pins);
	e->rsvd = e->rsvd0 < 0 ? LONG_MIN : rsvd_delta(e->rsvd0);
	if (e->leak)
		lp_tt_note(t, "pin leak: VmPin %+ld kB", e->leak);
	if (e->delta && e->delta != LONG_MIN)
		lp_tt_note(t, "nr_foll_pin acquired - released %+ld", e->delta);
	if (e->rsvd && e->rsvd != LONG_MIN)
		lp_tt_note(t, "HugePages_Rsvd %+ld after the teardown", e->rsvd);
	e->reports = e->kmsg < 0 ? -1 :
		     lp_kmsg_reports(e->kmsg, report, sizeof(report));
	if (e->reports > 0)
		lp_tt_note(t, "%ld kernel reports, the first: %s", e->reports, report);
	moved = e->rsvd && e->rsvd != LONG_MIN;
	known = moved ? rsvd_defect(t, e) : NULL;
	/* where TYPE registers, the run must show that it did */
	for (i = 0; i < n; i++)
		reg_threads |= !strcmp(h[i].op->name, "reg") ||
			       !strcmp(h[i].op->name, "io");
	none_ok = reg_threads && t->reg_expected && !t->cnt[TC_REG_OK];
	if (none_ok)
		lp_tt_note(t, "no registration succeeded in %lu (the contract lets %s register): the run tested nothing pinned",
			t->cnt[TC_REG] + t->cnt[TC_UPD], t->ops->name);
	e->verdict = lp_tt_verdict(none_ok || t->cnt[TC_REG_BAD] || t->cnt[TC_IO_BAD] ||
				t->cnt[TC_HARNESS_ERR] || e->leak ||
				e->reports > 0 || short_pins ||
				(e->delta && e->delta != LONG_MIN),
				moved, known, t->unchecked || foreign);
	ret = tt_write(t, e);
	if (ret != LP_OK)
		return ret;
	return e->verdict == LP_VERDICT_FAIL ? LP_FAIL : LP_OK;
}
