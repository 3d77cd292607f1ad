// SPDX-License-Identifier: GPL-2.0
/*
 * What torture's threads share while they race: counting, the row's
 * note, the deadline, the marks of the operations that change contents
 * or layout, and every registration and update answer judged as it comes
 * (the contract's answer for TYPE, a race's -EFAULT, else bad).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "torture.h"

/*
 * Count @c; an operation begun past the deadline (a thread finishing the
 * first choices seq_hash covers) is counted in late_ops too, so that the
 * operations of the seconds asked can be told from them.
 */
void lp_tt_count(struct tt *t, enum tt_cnt c)
{
	__atomic_add_fetch(&t->cnt[c], 1, __ATOMIC_RELAXED);
	if (c < TC_REG_OK && lp_now_ns() >= t->deadline)
		__atomic_add_fetch(&t->late, 1, __ATOMIC_RELAXED);
}

/* The first few failures, "; " separated, for the row's note. */
void lp_tt_note(struct tt *t, const char *fmt, ...)
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
bool lp_tt_more(const struct tt_thr *h)
{
	return lp_now_ns() < h->t->deadline || h->nseq < TT_SEQ_OPS;
}

/* A content-changing op (its writes may reach pinned pages) runs. */
void lp_tt_chg_begin(struct tt *t)
{
	__atomic_add_fetch(&t->chg_active, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&t->chg, 1, __ATOMIC_SEQ_CST);
}

void lp_tt_chg_end(struct tt *t)
{
	__atomic_add_fetch(&t->chg, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&t->chg_active, 1, __ATOMIC_SEQ_CST);
}

/* An op that may leave a range unmapped, read-only or past EOF runs. */
void lp_tt_lay_begin(struct tt *t)
{
	__atomic_add_fetch(&t->lay_active, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&t->lay, 1, __ATOMIC_SEQ_CST);
}

void lp_tt_lay_end(struct tt *t)
{
	__atomic_add_fetch(&t->lay, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&t->lay_active, 1, __ATOMIC_SEQ_CST);
}

/* An op that may reserve huge pages (remap's mmap of the file) runs. */
void lp_tt_resv_begin(struct tt *t)
{
	__atomic_add_fetch(&t->resv_active, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&t->resv, 1, __ATOMIC_SEQ_CST);
}

void lp_tt_resv_end(struct tt *t)
{
	__atomic_add_fetch(&t->resv, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&t->resv_active, 1, __ATOMIC_SEQ_CST);
}

struct tt_snap lp_tt_resv_take(struct tt *t)
{
	return (struct tt_snap){
		.lay = __atomic_load_n(&t->resv, __ATOMIC_SEQ_CST),
		.lay_active = __atomic_load_n(&t->resv_active, __ATOMIC_SEQ_CST),
	};
}

/* Did such an op run during the call that began at @s? */
bool lp_tt_resv_raced(struct tt *t, const struct tt_snap *s)
{
	return s->lay_active || __atomic_load_n(&t->resv, __ATOMIC_SEQ_CST) != s->lay;
}

struct tt_snap lp_tt_snap_take(struct tt *t)
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
void lp_tt_own(struct tt *t, size_t pinned, size_t tried)
{
	lp_pins_own(&t->pins, pinned / 4096, tried / 4096);
}

int lp_tt_reg_fault(struct tt_thr *h, int ret)
{
	if (!lp_test_fault("reg-efault"))
		return ret;
	if (!ret)
		h->p.ops->table_unpin(&h->p);
	return -EFAULT;
}

bool lp_tt_contract_says(const struct tt *t, int ret)
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
void lp_tt_judge_reg(struct tt_thr *h, int ret, const char *what,
		  const struct tt_snap *s)
{
	struct tt *t = h->t;

	if (t->unchecked || lp_tt_contract_says(t, ret)) {
		lp_tt_count(t, ret ? TC_REG_REFUSED : TC_REG_OK);
		return;
	}
	if (ret == -EFAULT && t->efault_race && raced(t, s)) {
		lp_tt_count(t, TC_REG_RACED);
		return;
	}
	/* the first bad answer is noted; reg_bad counts them all */
	if (__atomic_add_fetch(&t->cnt[TC_REG_BAD], 1, __ATOMIC_SEQ_CST) == 1)
		lp_tt_note(t, "%s answered %s (reg_bad counts every bad answer)",
			what, ret ? lp_errno_name(ret) : "0");
}

/* The contract's answers for TYPE at every prefault (they may differ). */
void lp_tt_answers_of(struct tt *t, const struct contract *c)
{
	bool nofault;
	int pf, err;

	t->unchecked = true;
	for (pf = 0; pf < PF_NR; pf++) {
		if (!lp_contract_lookup(c, t->ops->name, pf, t->len, &err, &nofault))
			continue;
		t->unchecked = false;
		/* the buffer is written before the threads start */
		if (pf == PF_WRITE)
			t->reg_expected = !err;
		if (!lp_tt_contract_says(t, err))
			t->answers[t->nanswers++] = err;
	}
}
