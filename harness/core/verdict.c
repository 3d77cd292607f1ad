// SPDX-License-Identifier: GPL-2.0
/*
 * A row, judged and shown: its verdict from its answer, the contract's
 * and its checks (docs/harness.md, "Exit status and verdicts"), its line
 * in the terminal table, and its write to the CSV (csv.c), skip rows too.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "longpin.h"

/* A row's verdict from its answer and the contract's (-: unchecked). */
enum lp_verdict lp_row_verdict(const struct row *r)
{
	if (!r->have_expected)
		return LP_VERDICT_UNCHECKED;
	return r->result == r->expected ? LP_VERDICT_PASS : LP_VERDICT_FAIL;
}

static void result_str(char *buf, size_t n, int v)
{
	if (!v)
		snprintf(buf, n, "0");
	else
		snprintf(buf, n, "-%s", lp_errno_name(v));
}

/* Widths of the table's columns: the longest memory type is 24. */
#define T_MEM	"%-24s"

static void note_line(const struct row *r)
{
	if (r->note && *r->note)
		printf("  note: %s\n", r->note);
}

/* "1234 [1200-1300]": a median and its range. */
static void fmt_range3(char *buf, size_t n, double med, double lo, double hi)
{
	snprintf(buf, n, "%.0f [%.0f-%.0f]", med, lo, hi);
}

/*
 * One row of the terminal table; @header first prints the column names.
 * The columns follow what was run: --cycles adds the cycles' ns/page,
 * --mmap-probe the prober's longest call, p99.9 and count.
 */
void lp_table_print(const struct row *r, bool header, const struct opts *o)
{
	char size[24], res[24], exp[24] = "-", fixed[24] = "-", plain[24] = "-",
	     ratio[24] = "-", thp[24] = "-", cyc[48] = "-", probe[64] = "-";

	if (header) {
		printf(T_MEM " %-8s %5s %-12s %-12s %-7s %9s %11s %7s %6s %-8s %11s %11s %11s",
		       "memtype", "prefault", "size", "result", "expected",
		       "verdict", "reg ns/pg", "unreg ns/pg", "leak kB",
		       "thp kB", "data", "fixed MiB/s", "plain MiB/s",
		       "fixed/plain");
		if (o->cycles)
			printf("  %-24s", "cycles ns/pg med [min-max]");
		if (o->mmap_probe)
			printf("  %s", "probe us max / p99.9 / calls");
		putchar('\n');
	}
	lp_fmt_size(size, sizeof(size), r->size);
	result_str(res, sizeof(res), r->result);
	if (r->have_expected)
		result_str(exp, sizeof(exp), r->expected);
	if (r->thp_kb >= 0)
		snprintf(thp, sizeof(thp), "%ld", r->thp_kb);
	if (r->io.done) {
		snprintf(fixed, sizeof(fixed), "%.1f", r->io.fixed_mibs.med);
		snprintf(plain, sizeof(plain), "%.1f", r->io.plain_mibs.med);
		snprintf(ratio, sizeof(ratio), "%.2f", r->io.ratio.med);
	}
	if (r->cyc.n)
		fmt_range3(cyc, sizeof(cyc), r->cyc.reg_med, r->cyc.reg_min,
			   r->cyc.reg_max);
	if (r->cyc.probed)
		snprintf(probe, sizeof(probe), "%.0f / %.0f / %llu",
			 r->cyc.probe_max_us, r->cyc.probe_p999_us,
			 (unsigned long long)r->cyc.probe_calls);
	printf(T_MEM " %-8s %5s %-12s %-12s %-7s %9.0f %11.0f %7ld %6s %-8s %11s %11s %11s",
	       r->mem, lp_prefault_name(r->pf), size, res, exp, lp_verdict_name(r->verdict),
	       r->reg_ns, r->unreg_ns, r->vmpin[2] - r->vmpin[0], thp,
	       r->io.check[0] ? r->io.check : "-", fixed, plain, ratio);
	if (o->cycles)
		printf("  %-24s", cyc);
	if (o->mmap_probe)
		printf("  %s", probe);
	putchar('\n');
	note_line(r);
}

/* One row of a --lifetime case. */
void lp_table_print_lifetime(const struct row *r, bool header)
{
	char size[24], res[24], exp[24] = "-", vmpin[48];

	if (header)
		printf("%-24s " T_MEM " %-8s %5s %-12s %-12s %-11s %-26s %s\n",
		       "case", "memtype", "prefault", "size", "result",
		       "expected", "verdict", "VmPin kB before/reg/after",
		       "data");
	lp_fmt_size(size, sizeof(size), r->size);
	result_str(res, sizeof(res), r->result);
	if (r->have_expected)
		result_str(exp, sizeof(exp), r->expected);
	snprintf(vmpin, sizeof(vmpin), "%ld / %ld / %ld", r->vmpin[0],
		 r->vmpin[1], r->vmpin[2]);
	printf("%-24s " T_MEM " %-8s %5s %-12s %-12s %-11s %-26s %s\n", r->op,
	       r->mem, lp_prefault_name(r->pf), size, res, exp, lp_verdict_name(r->verdict), vmpin,
	       r->io.check[0] ? r->io.check : "-");
	note_line(r);
}

/*
 * The verdict of a row whose result (and expected answer, when known) is
 * set; matrix rows and --lifetime rows alike (docs/harness.md, "Exit
 * status and verdicts"). @failed: a check beside the answer failed (a
 * pin leak, the data check, a cycle, an unregistration). @d: what the
 * contract's known defect on this row did. A leak row (leak=NAME)
 * expects the pin's own answer, a loss row (defect) the loss's (-EIO):
 * there the answer of a row whose data was kept (DEFECT_ABSENT,
 * DEFECT_UNEXERCISED) is 0, and it stands for the contract's.
 * "fail": @failed, or not the expected answer; "unchecked": no expected
 * answer; then, for the expected answer only: "unexercised": the case
 * did not happen (r->unexercised says why: its pages never left memory,
 * or a loss's precondition did not hold), whatever the defect;
 * "unchecked": a check a pass needs could not be made (r->unchecked says
 * why: other pinners moved the machine's pin counters), whatever the
 * defect;
 * "defect": the contract's known defect showed (DEFECT_SHOWN); "fixed":
 * it did not (DEFECT_ABSENT); else "pass". A warning names a defect or a
 * fixed one. Sets r->verdict and r->note (@note, which the caller may
 * still append to); returns LP_FAIL for "fail", else LP_OK.
 */
int lp_row_judge(struct row *r, bool failed, enum row_defect d, const char *note)
{
	bool kept = (d == DEFECT_ABSENT || d == DEFECT_UNEXERCISED) &&
		    !r->result;

	if (failed)
		r->verdict = LP_VERDICT_FAIL;
	else if (!r->have_expected)
		r->verdict = LP_VERDICT_UNCHECKED;
	else if (r->result != r->expected && !kept)
		r->verdict = LP_VERDICT_FAIL;
	else if (r->unexercised || d == DEFECT_UNEXERCISED)
		r->verdict = LP_VERDICT_UNEXERCISED;
	else if (r->unchecked)
		r->verdict = LP_VERDICT_UNCHECKED;
	else if (d == DEFECT_SHOWN)
		r->verdict = LP_VERDICT_DEFECT;
	else if (d == DEFECT_ABSENT)
		r->verdict = LP_VERDICT_FIXED;
	else
		r->verdict = LP_VERDICT_PASS;
	if (r->verdict == LP_VERDICT_DEFECT)
		lp_warn("%s %s %s: a known defect of this kernel (contract %s): %s",
			r->op, r->mem, lp_prefault_name(r->pf), r->contract, note);
	if (r->verdict == LP_VERDICT_FIXED)
		lp_warn("%s %s %s: the contract's known defect did not show (contract %s): %s",
			r->op, r->mem, lp_prefault_name(r->pf), r->contract, note);
	r->note = note;
	return r->verdict == LP_VERDICT_FAIL ? LP_FAIL : LP_OK;
}

/* the prefaults this process wrote a row of */
static unsigned int pf_rows;

unsigned int lp_rows_written_pf(void)
{
	return pf_rows;
}

int lp_row_skip(struct row *r, const struct opts *o, const char *why)
{
	r->verdict = LP_VERDICT_SKIP;
	r->note = why;
	r->reg_ns = r->unreg_ns = NAN;
	r->fs_type = r->fs_type ? r->fs_type : "-";
	r->dax = -1;
	r->thp_kb = r->pin_acq = r->pin_rel = -1;
	r->vmpin[0] = r->vmpin[1] = r->vmpin[2] = -1;
	r->resident[0] = r->resident[1] = r->dirty_kb[0] = r->dirty_kb[1] = -1;
	pf_rows |= 1u << r->pf;
	if (o->csv && lp_csv_append(o->csv, r, o->repeat) != LP_OK)
		return LP_EUSAGE;
	return LP_OK;
}

/*
 * Show a judged row in the table (unless --quiet) and append it to the
 * CSV (--csv); returns @ret, or LP_EUSAGE when the CSV refused the row.
 */
int lp_row_write(const struct row *r, const struct opts *o, bool header, int ret)
{
	pf_rows |= 1u << r->pf;
	if (!o->quiet && o->lcase)
		lp_table_print_lifetime(r, header);
	else if (!o->quiet)
		lp_table_print(r, header, o);
	if (o->csv && lp_csv_append(o->csv, r, o->repeat) != LP_OK)
		return LP_EUSAGE;
	return ret;
}
