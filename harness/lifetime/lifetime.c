// SPDX-License-Identifier: GPL-2.0
/*
 * longpin lifetime CASE: what happens to a pinned buffer when its memory
 * changes under the pin (munmap, fork, truncate, hole punch, mremap),
 * whether what the device wrote survives reclaim after the unpin, when
 * it is unpinned with I/O in flight, when the ring goes away without
 * unregistering, when a sparse table slot is updated, over many cycles,
 * at the kernel's limits and at RLIMIT_MEMLOCK. One CSV row per prefault
 * (limits: four), op "lifetime-CASE" (limits: "limit-*"). See docs/lifetime-and-torture.md.
 *
 * This file is the one runner, for every pinner a case takes (io_uring,
 * rdma): the table of cases (each a struct lt_case in its lt_*.c file,
 * saying the types, pinners and options it takes), the --mem buffer,
 * pinner and I/O target each one gets per prefault, and the checks of the
 * command line. What the cases share is lt_common.c's, their rows
 * lt_row.c's (lifetime.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lifetime.h"

/* The cases, in the order of --help and the error that lists them. */
static const struct lt_case *const cases[] = {
	&lp_lt_case_munmap, &lp_lt_case_fork, &lp_lt_case_truncate,
	&lp_lt_case_punch, &lp_lt_case_mremap, &lp_lt_case_reclaim,
	&lp_lt_case_reclaim_pinned, &lp_lt_case_lazyfree,
	&lp_lt_case_unreg_inflight, &lp_lt_case_close_ring, &lp_lt_case_update,
	&lp_lt_case_cycles, &lp_lt_case_memlock, &lp_lt_case_limits,
};

/* A temp target of 4 x chk next to the memory: want at 0, zeros after. */
static int target_open(struct lt *t)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	off_t off;

	if (snprintf(path, sizeof(path), "%s/longpin-target.XXXXXX",
		     t->mem_up ? t->m.target_dir : tmp && *tmp ? tmp : "/tmp") >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	t->tfd = mkstemp(path);
	if (t->tfd < 0)
		return -errno;
	unlink(path);
	if (fcntl(t->tfd, F_SETFL, O_DIRECT))
		lp_lt_note(t, "target without O_DIRECT");
	lp_pattern_fill(t->want, t->chk, lp_now_ns());
	memset(t->got, 0, t->chk);
	for (off = 0; off < 4 * (off_t)t->chk; off += t->chk)
		if (pwrite(t->tfd, off ? t->got : t->want, t->chk, off) !=
		    (ssize_t)t->chk)
			return -errno ? -errno : -EIO;
	/* LONGPIN_TEST_FAULT=short-read: the first check reads half of it */
	if (lp_test_fault("short-read") && ftruncate(t->tfd, t->chk / 2))
		return -errno;
	return 0;
}

/* Is @ops of the case's memory types: every flag it has, none it lacks? */
static bool type_fits(const struct lt_case *k, const struct mem_ops *ops)
{
	return (ops->flags & k->has) == k->has && !(ops->flags & k->lacks);
}

/*
 * Set up the case's buffer and prefault it: returns lp_mem_setup()'s exit
 * status; *pop gets the prefault's answer, which the case goes on with.
 */
static int lt_mem_up(struct lt *t, int *pop)
{
	int ret = lp_mem_setup(&t->m, t->ops, t->o);

	if (ret != LP_OK)
		return ret;
	t->mem_up = true;
	*pop = (t->ops->populate ? t->ops->populate : lp_mem_populate)(&t->m, t->pf);
	t->r.fs_type = t->m.fs_type;
	t->r.dax = t->m.dax;
	return LP_OK;
}

/* Does the case apply to memory type @ops: of its types, no flag it skips? */
static bool lt_case_applies(const struct lt_case *k, const struct mem_ops *ops)
{
	return type_fits(k, ops) && !(ops->flags & k->skip_flags) &&
	       !(k->why_not && k->why_not(ops));
}

/* what a case leaves at its end: the pins it held, then its window */
static void leak_end(struct lt *t)
{
	if (t->leaking)
		lp_pinner_leak_end(&t->leak);
	t->leaking = false;
}

/*
 * LONGPIN_TEST_FAULT=pin-leak: a second instance of the pinner pins the
 * case's buffer and holds it past the leak check (leak_end() lets it go).
 */
static void leak_begin(struct lt *t)
{
	if (lp_test_fault("pin-leak"))
		t->leaking = lp_pinner_leak_begin(&t->leak, &t->p, &t->m);
	if (t->leaking)
		lp_pins_own(&t->pins, t->m.len / 4096, t->m.len / 4096);
}

/* Cases on one --mem buffer: those that need it registered. */
static int needs_registrable(struct lt *t, const struct lt_case *k)
{
	bool nofault;
	char key[32];
	int err;

	if (k->refused_too)
		return 0;
	if (!lp_contract_lookup_pinner(t->c, lp_pinner_key(key, sizeof(key), t->o),
				    t->ops->name, t->pf, t->o->size, &err,
				    &nofault) || !err)
		return 0;
	lp_lt_note(t, "%s is refused on this kernel (contract %s: -%s): nothing registered to test",
		t->ops->name, lp_contract_name(t->c), lp_errno_name(err));
	return LT_SKIP;
}

static int mem_case(struct lt *t, const struct lt_case *k)
{
	char op[48], key[32];
	int ret, pop;

	snprintf(op, sizeof(op), "lifetime-%s", k->name);
	lp_lt_row_reset(t, t->ops->name, t->o->size);
	t->r.have_expected = lp_contract_lookup_case_pinner(t->c,
		lp_pinner_key(key, sizeof(key), t->o), k->name, t->ops->name,
		t->pf, t->o->size, &t->r.expected, &t->defect);
	if (!type_fits(k, t->ops)) {
		lp_lt_note(t, "%s: %s", t->ops->name, k->why);
		return LT_SKIP;
	}
	if (k->why_not && k->why_not(t->ops)) {
		lp_lt_note(t, "%s: %s", t->ops->name, k->why_not(t->ops));
		return LT_SKIP;
	}
	ret = needs_registrable(t, k);
	if (ret)
		return ret;
	ret = lt_mem_up(t, &pop);
	if (ret != LP_OK)
		return ret;
	ret = pop;
	if (!ret)
		leak_begin(t);
	t->chk = t->m.len / 2 < LT_CHECK_MAX ? t->m.len / 2 : LT_CHECK_MAX;
	t->chk &= ~(size_t)4095;
	if (!ret && t->chk < 4096)
		return lp_err(LP_EUSAGE, "lifetime %s needs --size 8K or more",
			      k->name);
	if (!ret && !k->no_target)
		ret = target_open(t);
	/* after the setup: a type that cannot be set up here skips for that */
	if (!ret && (t->ops->flags & k->skip_flags)) {
		lp_lt_note(t, "%s: %s", t->ops->name, k->why_flags);
		return LT_SKIP;
	}
	if (!ret)
		ret = k->run(t);
	if (ret == LT_SKIP)
		return ret;
	if (!ret && k->checks_data && !strcmp(t->check, "-"))
		strcpy(t->check, "ok");
	if (t->registered && lp_lt_unreg(t) && !ret)
		ret = -EIO;
	if (!k->own_unpin_check) {
		unsigned int took;

		t->r.vmpin[2] = lp_lt_pin_wait(t, 2000, &took);
		if (t->r.vmpin[2] != t->r.vmpin[0])
			ret = lp_lt_leak(t, ret);
	}
	leak_end(t);
	lp_lt_row_counters(t);
	return lp_lt_emit(t, op, ret);
}

static void lt_cleanup(struct lt *t)
{
	leak_end(t);
	lp_pins_end(&t->pins);
	if (t->tfd >= 0)
		close(t->tfd);
	t->tfd = -1;
	/* the pinner first: what it holds of the buffer goes with it */
	lp_pinner_close(&t->p);
	t->registered = false;
	if (t->mem_up)
		lp_mem_teardown(&t->m);
	t->mem_up = false;
}

static int run_pf(struct lt *t, const struct lt_case *k)
{
	int ret;

	t->p.entries = 2 * LT_INFLIGHT;
	ret = lp_pinner_open(&t->p, t->o);
	if (ret != LP_OK)
		return ret;
	ret = k->own_mem ? k->run(t) : mem_case(t, k);
	lt_cleanup(t);
	return ret;	/* LT_SKIP: t->note says why */
}

static const struct lt_case *case_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (!strcmp(cases[i]->name, name))
			return cases[i];
	return NULL;
}

/* --lifetime NAME, not a case: a usage error that names them all. */
static int case_unknown(const char *name)
{
	char list[256] = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		lp_list_add(list, sizeof(list), i, ARRAY_SIZE(cases),
			 cases[i]->name);
	return lp_err(LP_EUSAGE, "lifetime %s: no such case: give %s", name, list);
}

static const char *const io_uring_only[] = { "io_uring", NULL };

static const char *const *case_pinners(const struct lt_case *k)
{
	return k->pinners ? k->pinners : io_uring_only;
}

/* Does case @k take the pinner @name? */
static bool case_takes(const struct lt_case *k, const char *name)
{
	const char *const *n;

	for (n = case_pinners(k); *n; n++)
		if (!strcmp(*n, name))
			return true;
	return false;
}

/* "io_uring or rdma": the pinners case @k takes */
static const char *pinners_of(const struct lt_case *k, char *buf, size_t n)
{
	const char *const *p = case_pinners(k);
	size_t i, count = 0;

	while (p[count])
		count++;
	buf[0] = '\0';
	for (i = 0; i < count; i++)
		lp_list_add(buf, n, i, count, p[i]);
	return buf;
}

/* "cycles, reclaim or lazyfree": the cases that take the pinner @name */
static const char *cases_of(const char *name, char *buf, size_t n)
{
	size_t i, k = 0, count = 0;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		count += case_takes(cases[i], name);
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (case_takes(cases[i], name))
			lp_list_add(buf, n, k++, count, cases[i]->name);
	return buf;
}

/*
 * The run's pinner must be one that case @k takes, and pin for the device
 * to write: the lifetime of a pin is what it tests.
 */
static int pinner_fits(const struct lt_case *k, const struct opts *o)
{
	const struct pinner_ops *ops = lp_pinner_find(o->pinner)->ops;
	char list[160], other[160];

	if (!ops->unpin)
		return lp_err(LP_EUSAGE,
			      "lifetime %s: --pinner %s unpins inside its ioctl, so there is no unpin to test: give --pinner %s",
			      k->name, o->pinner, pinners_of(k, list, sizeof(list)));
	if (!case_takes(k, o->pinner) && !*cases_of(o->pinner, other, sizeof(other)))
		return lp_err(LP_EUSAGE,
			      "lifetime %s takes --pinner %s only: --pinner %s takes no lifetime case",
			      k->name, pinners_of(k, list, sizeof(list)), o->pinner);
	if (!case_takes(k, o->pinner))
		return lp_err(LP_EUSAGE,
			      "lifetime %s takes --pinner %s only: with --pinner %s give %s",
			      k->name, pinners_of(k, list, sizeof(list)), o->pinner,
			      other);
	if (o->readonly_pin)
		return lp_err(LP_EUSAGE,
			      "lifetime %s pins for the device to write: drop --readonly-pin",
			      k->name);
	if (o->mmap_probe && !ops->cycles)
		return lp_err(LP_EUSAGE,
			      "--mmap-probe times io_uring's registrations, not --pinner %s's: drop it",
			      o->pinner);
	return LP_OK;
}

/*
 * lifetime CASE --list: the memory types CASE applies to, one a line, in
 * the order of `longpin types`. Whether one runs here is the run's to
 * say: the kernel may refuse it (exit 77 with the reason), or this
 * machine lack its file system, device or huge pages. Without CASE: the
 * cases (with --pinner, those that take it), the one list of them that
 * the scripts and tests read.
 */
int lp_lifetime_list(const char *name, const struct opts *o)
{
	const struct lt_case *k = name ? case_find(name) : NULL;
	const struct mem_ops *ops;
	size_t i;

	for (i = 0; !name && i < ARRAY_SIZE(cases); i++)
		if (!lp_opt_given(o, OPT_PINNER) || case_takes(cases[i], o->pinner))
			printf("%s\n", cases[i]->name);
	if (!name)
		return LP_OK;
	if (!k)
		return case_unknown(name);
	for (i = 0; (ops = lp_mem_nth(i)); i++)
		if (lt_case_applies(k, ops))
			printf("%s\n", ops->name);
	return LP_OK;
}

/* The options only some cases take: theirs, else a usage error. */
static int case_opts(const struct lt_case *k, const struct opts *o)
{
	static const enum opt_id own[] = {
		OPT_CYCLES, OPT_MMAP_PROBE, OPT_CONCURRENT,
	};
	char who[96];
	size_t i, j, n, w;

	for (i = 0; i < ARRAY_SIZE(own); i++) {
		if (!lp_opt_given(o, own[i]) || (k->takes & OPT(own[i])))
			continue;
		for (j = n = 0; j < ARRAY_SIZE(cases); j++)
			n += !!(cases[j]->takes & OPT(own[i]));
		who[0] = '\0';
		for (j = w = 0; j < ARRAY_SIZE(cases); j++)
			if (cases[j]->takes & OPT(own[i]))
				lp_list_add(who, sizeof(who), w++, n,
					 cases[j]->name);
		return lp_err(LP_EUSAGE,
			      "lifetime %s ignores --%s (only lifetime %s takes it): drop it",
			      k->name, lp_opt_name(own[i]), who);
	}
	if (o->mmap_probe && !o->cycles)
		return lp_err(LP_EUSAGE,
			      "--mmap-probe runs during --cycles: give --cycles N too");
	return LP_OK;
}

/*
 * longpin lifetime CASE: a case, the run's pinner one it takes, the
 * options only some cases take theirs. Without CASE, --list lists them.
 */
int lp_lifetime_check(struct opts *o)
{
	const struct lt_case *k;
	int ret;

	o->lcase = o->nargs ? o->arg[0] : NULL;
	if (!o->lcase && o->list)
		return LP_OK;
	if (!o->lcase)
		return lp_err(LP_EUSAGE,
			      "longpin lifetime needs a CASE: longpin lifetime --list lists them");
	k = case_find(o->lcase);
	if (!k)
		return case_unknown(o->lcase);
	if (o->list)
		return LP_OK;
	ret = pinner_fits(k, o);
	return ret != LP_OK ? ret : case_opts(k, o);
}

bool lp_lifetime_own_limits(const struct opts *o)
{
	const struct lt_case *k = o->lcase ? case_find(o->lcase) : NULL;

	return o->no_memlock_check || (k && k->no_memlock_check);
}

/* The cases, for longpin lifetime --help and the manual page. */
void lp_lifetime_more(FILE *f, bool man)
{
	char help[320], list[64];
	size_t i;

	lp_items_head(f, man, "Cases (longpin lifetime --list)");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(help, sizeof(help), "%s (--pinner %s)", cases[i]->help,
			 pinners_of(cases[i], list, sizeof(list)));
		lp_item_help(f, man, cases[i]->name, help);
	}
}

int lp_lifetime_run(const struct mem_ops *ops, const struct opts *o,
		 const struct contract *c)
{
	const struct lt_case *k = case_find(o->lcase);
	struct lt t = { .o = o, .c = c, .ops = ops, .k = k, .tfd = -1 };
	int worst = LP_OK, ret, ran = 0, skips = 0, unexercised = 0;
	const struct mem_ops *own;
	size_t len, i;
	char why[sizeof(t.note)] = "", skipped[32] = "";

	/* a case that maps its own memory: --mem names the type it is */
	if (k->own_mem && !lt_case_applies(k, ops)) {
		for (i = 0; (own = lp_mem_nth(i)) && !lt_case_applies(k, own); i++)
			;
		return lp_err(LP_SKIP, "lifetime %s runs on %s memory only (--mem %s)",
			      k->name, own ? own->name : "no", own ? own->name : "-");
	}
	t.want = aligned_alloc(4096, LT_CHECK_MAX);
	t.got = aligned_alloc(4096, LT_CHECK_MAX);
	if (!t.want || !t.got)
		return lp_err(LP_EUSAGE, "out of memory");
	for (t.pf = 0; t.pf < PF_NR; t.pf++) {
		if (!(o->prefaults & (1u << t.pf)))
			continue;
		ret = run_pf(&t, k);
		/*
		 * A case that cannot run at this prefault (the contract
		 * refuses TYPE there, say) may at another: fsdax-private
		 * registers on 6.5+ once written. The skip is said, and its
		 * row written; the run skips when no prefault ran, or none
		 * that ran was exercised.
		 */
		if (ret == LT_SKIP) {
			len = strlen(skipped);
			snprintf(skipped + len, sizeof(skipped) - len, "%s%s",
				 skips++ ? "," : "", lp_prefault_name(t.pf));
			snprintf(why, sizeof(why), "%s", t.note);
			if (!k->own_mem && lp_lt_skip_row(&t, t.note) != LP_OK) {
				worst = LP_EUSAGE;
				break;
			}
			continue;
		}
		if (ret == LT_UNEXERCISED) {
			unexercised++;
			snprintf(why, sizeof(why), "%s", t.r.unexercised);
			continue;
		}
		ran++;
		if (ret == LP_EUSAGE || ret == LP_SKIP) {
			worst = ret;
			break;
		}
		if (ret > worst)
			worst = ret;
	}
	free(t.want);
	free(t.got);
	if ((skips || unexercised) && !ran)
		return lp_err(LP_SKIP, "lifetime %s: %s", k->name, why);
	if (unexercised && !o->quiet)
		fprintf(stderr, "longpin: lifetime %s: %d prefault(s) unexercised: %s\n",
			k->name, unexercised, why);
	if (skips && !o->quiet)
		fprintf(stderr, "longpin: lifetime %s: prefault %s skipped: %s\n",
			k->name, skipped, why);
	return worst;
}
