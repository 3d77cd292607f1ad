// SPDX-License-Identifier: GPL-2.0
/*
 * --lifetime reclaim, reclaim-pinned, lazyfree: what the device wrote
 * through the pin (io_uring's READ_FIXED, rdma's RDMA WRITE) after unpin
 * and reclaim.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lifetime.h"

/* Bytes of the page at @off (@n bytes) that differ from the pattern. */
static size_t page_lost(struct lt *t, size_t off, size_t n)
{
	const char *buf = t->m.addr;
	size_t i, lost = 0;

	/* t->chk is a multiple of 4 KiB: a page never straddles two copies */
	if (!memcmp(buf + off, t->want + off % t->chk, n))
		return 0;
	for (i = 0; i < n; i++)
		lost += buf[off + i] != t->want[(off + i) % t->chk];
	return lost;
}

/*
 * Bytes of the buffer that no longer hold the pattern the device wrote
 * there; *intact: the pages that hold it whole.
 */
static size_t bytes_lost(struct lt *t, long *intact)
{
	size_t off, n, lost = 0, pg;
	long pages = 0;

	for (off = 0; off < t->m.len; off += n) {
		n = t->m.len - off < 4096 ? t->m.len - off : 4096;
		pg = page_lost(t, off, n);
		pages += !pg;
		lost += pg;
	}
	*intact = pages;
	return lost;
}

/*
 * Before the unpin: the buffer holds what the device wrote, else the
 * write landed elsewhere (or not at all) and the case fails on its own.
 */
static int written_check(struct lt *t, const char *writer)
{
	long intact;
	size_t lost = bytes_lost(t, &intact);

	if (!lost)
		return 0;
	strcpy(t->check, "mismatch");
	return lp_lt_fail(t, "before the unpin %zu of %zu bytes of the buffer differ from what %s wrote: the write did not land in these pages",
		       lost, t->m.len, writer);
}

/* What the pages were at the unpin: frames moved by the pin, dirty kB. */
struct pages_seen {
	uint64_t *pfn;		/* before the pin */
	unsigned char *vec;	/* resident before the page-out */
};

static int seen_alloc(struct pages_seen *s, size_t len)
{
	s->pfn = calloc(len / 4096 + 1, sizeof(*s->pfn));
	s->vec = calloc(len / 4096 + 1, 1);
	return s->pfn && s->vec ? 0 : -ENOMEM;
}

static void seen_free(struct pages_seen *s)
{
	free(s->pfn);
	free(s->vec);
}

/* After the pin: how many pages it moved (-: frames not shown here). */
static void moved_count(struct lt *t, struct pages_seen *s, bool known)
{
	size_t i, n = t->m.len / 4096;
	uint64_t *now = calloc(n + 1, sizeof(*now));
	long moved = 0;

	if (now && known && !lp_page_frames(t->m.addr, t->m.len, now)) {
		for (i = 0; i < n; i++)
			moved += s->pfn[i] && now[i] && s->pfn[i] != now[i];
		row_pg_set(&t->r, RP_MOVED, moved);
	}
	free(now);
}

/* Just before the unpin: the buffer's dirty kB (PTEs and page flags). */
static void dirty_at_unpin(struct lt *t)
{
	struct smaps_sum sm;

	if (!lp_smaps_range(t->m.addr, t->m.len, &sm))
		row_pg_set(&t->r, RP_DIRTY_UNPIN_KB, sm.dirty_kb);
}

/*
 * The page-out rule, on what a case counted page by page (@p). Bytes
 * changed on a page that never left memory fail the row on their own. A
 * loss by the unpin needs pages that reclaim takes for clean: where every
 * page was dirty before the unpin (moved or written by the pin, or by
 * the prefault), the case cannot show it, so a row whose data came back
 * proves nothing (unexercised, whatever its contract expects) and one
 * whose data is gone lost it otherwise (a failure, never the known
 * defect). Some bytes of pages that left memory gone: the loss (-EIO:
 * the one thing a "defect" contract row names), on as many pages as
 * left. Its data back: the case happened only if every page of the
 * buffer left memory, else it proves nothing of the pages that stayed
 * (unexercised, with how many left).
 */
enum lp_pageout_res lp_pageout_judge(const struct lp_pageout *p)
{
	bool all_dirty = p->dirty_kb >= 0 && p->dirty_kb >= p->pages * 4;

	if (p->lost_stayed)
		return LP_PO_STAYED_LOST;
	if (all_dirty && p->lost_out)
		return LP_PO_DIRTY_LOST;
	if (p->lost_out)
		return LP_PO_LOST;
	if (!p->out)
		return LP_PO_NONE_OUT;
	if (all_dirty)
		return LP_PO_ALL_DIRTY;
	if (p->out < p->pages)
		return LP_PO_PARTIAL;
	return LP_PO_KEPT;
}

/* After the page-out (@s: resident before it): the page-out rule's figures. */
static int pageout_count(struct lt *t, const struct pages_seen *s,
			 struct lp_pageout *p)
{
	size_t i, n = t->m.len / 4096, lost;
	unsigned char *after = calloc(n + 1, 1);
	bool out;

	*p = (struct lp_pageout){ .pages = n, .dirty_kb = -1 };
	if (!after || lp_resident_map(t->m.addr, t->m.len, after)) {
		free(after);
		return -1;
	}
	for (i = 0; i < n; i++) {
		out = (s->vec[i] & 1) && !(after[i] & 1);
		lost = page_lost(t, i * 4096, 4096);
		p->out += out;
		p->intact += !lost;
		if (out)
			p->lost_out += lost;
		else
			p->lost_stayed += lost;
	}
	free(after);
	if (t->r.pg_have & 1u << RP_DIRTY_UNPIN_KB)
		p->dirty_kb = t->r.pg[RP_DIRTY_UNPIN_KB];
	return 0;
}

/*
 * After the page-out and the read-back: what left memory and what came
 * back, judged by lp_pageout_judge(); the row gets the figures, its data
 * check and its note. Bytes lost are counted over the pages that left.
 */
static int reclaim_judge(struct lt *t, struct pages_seen *s,
			 const char *writer)
{
	struct lp_pageout p;

	if (pageout_count(t, s, &p))
		return lp_lt_fail(t, "mincore: %s: cannot tell what left memory",
			       lp_errno_name(errno));
	row_pg_set(&t->r, RP_OUT, p.out);
	row_pg_set(&t->r, RP_INTACT, p.intact);
	strcpy(t->check, "mismatch");
	switch (lp_pageout_judge(&p)) {
	case LP_PO_STAYED_LOST:
		return lp_lt_fail(t, "%zu bytes of the %ld pages that did not leave memory differ from what %s wrote (%ld of %ld pages left memory)",
			       p.lost_stayed, p.pages - p.out, writer, p.out,
			       p.pages);
	case LP_PO_DIRTY_LOST:
		return lp_lt_fail(t, "%zu of %ld bytes differ from what %s wrote (%ld of %ld pages left memory), though every page was dirty before the unpin: not a loss by the unpin, which needs pages reclaim takes for clean",
			       p.lost_out, p.out * 4096, writer, p.out,
			       p.pages);
	case LP_PO_LOST:
		lp_lt_note(t, "data lost: %zu of %ld bytes differ from what %s wrote (%ld of %ld pages left memory)",
			p.lost_out, p.out * 4096, writer, p.out, p.pages);
		t->lost = true;
		return -EIO;
	case LP_PO_NONE_OUT:
		t->r.unexercised = "no page of the buffer left memory at the page-out (no swap, or reclaim kept them): the case proves nothing here";
		break;
	case LP_PO_ALL_DIRTY:
		t->r.unexercised = "every page was dirty before the unpin (the pin moved or wrote them, or the prefault did): a loss by the unpin needs pages reclaim takes for clean, so the case proves nothing here";
		break;
	case LP_PO_PARTIAL:
		t->r.unexercised = "not every page of the buffer left memory at the page-out: the pages that stayed prove nothing, and a pass needs them all";
		break;
	case LP_PO_KEPT:
		break;
	}
	strcpy(t->check, "ok");
	if (t->r.unexercised)
		lp_lt_note(t, "unexercised: %s (%ld of %ld pages left memory; every byte is back)",
			t->r.unexercised, p.out, p.pages);
	else
		lp_lt_note(t, "every page (%ld of %ld) left memory and came back whole",
			p.out, p.pages);
	return 0;
}

/*
 * Can reclaim be asked for @ops's pages? Not for DAX memory (it is the
 * device's, never paged out) nor hugetlb (MADV_PAGEOUT answers EINVAL): a
 * reclaim case there would compare data nothing touched.
 */
static const char *reclaim_why_not(const struct mem_ops *ops)
{
	if (ops->place == PLACE_DAX || ops->place == PLACE_DEVDAX)
		return "DAX memory is never paged out: nothing to reclaim";
	if (ops->flags & MEM_HUGETLB)
		return "hugetlb pages are not paged out (MADV_PAGEOUT answers EINVAL): nothing to reclaim";
	return NULL;
}

/* Is a page that was resident before the page-out (@s) resident still? */
static bool still_resident(struct lt *t, const struct pages_seen *s)
{
	size_t i, n = t->m.len / 4096;
	unsigned char *now = calloc(n + 1, 1);
	bool some = false;

	if (!now || lp_resident_map(t->m.addr, t->m.len, now)) {
		free(now);
		return false;
	}
	for (i = 0; i < n && !some; i++)
		some = (s->vec[i] & 1) && (now[i] & 1);
	free(now);
	return some;
}

/*
 * Ask reclaim for the buffer's pages; LT_SKIP when it refuses (nothing
 * was paged out, so the case would test nothing). A file's dirty pages
 * are written back first (reclaim does not write a file's pages from
 * MADV_PAGEOUT), then its clean page cache dropped (root only). @s:
 * what was resident just before.
 */
static int lt_page_out(struct lt *t, const char *when, struct pages_seen *s)
{
	const char *why = reclaim_why_not(t->ops);
	int fd, i;

	if (why) {
		lp_lt_note(t, "%s", why);
		return LT_SKIP;
	}
	if ((t->ops->flags & MEM_FILE) && t->m.fd >= 0 && fsync(t->m.fd))
		lp_lt_note(t, "fsync %s: %s", when, lp_errno_name(errno));
	if (s && lp_resident_map(t->m.addr, t->m.len, s->vec)) {
		lp_lt_note(t, "mincore %s: %s", when, lp_errno_name(errno));
		return LT_SKIP;
	}
	if (madvise(t->m.addr, t->m.len, MADV_PAGEOUT)) {
		lp_lt_note(t, "MADV_PAGEOUT %s: %s: nothing was paged out", when,
			lp_errno_name(errno));
		return LT_SKIP;
	}
	/*
	 * Reclaim takes a lazily freed folio that was written again back as
	 * swap-backed, and keeps it for this pass: page out again (twice at
	 * most) while pages that were resident still are
	 */
	for (i = 0; s && i < 2 && still_resident(t, s); i++)
		madvise(t->m.addr, t->m.len, MADV_PAGEOUT);
	if (!(t->ops->flags & MEM_FILE) || geteuid())
		return 0;
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		lp_lt_note(t, "drop_caches: %s", lp_errno_name(errno));
	if (fd >= 0)
		close(fd);
	return 0;
}

/*
 * The device writes the pattern (t->want, which the target holds too)
 * over the whole pinned buffer: 0, -EIO (a failure, noted) or LT_SKIP.
 */
static int dev_write(struct lt *t)
{
	char note[160] = "";
	int ret = t->p.ops->dev_write(&t->p, &t->m, t->want, t->chk, t->tfd,
				      note, sizeof(note));

	if (ret == LP_SKIP) {
		lp_lt_note(t, "%s", note);
		return LT_SKIP;
	}
	if (ret)
		return lp_lt_fail(t, "%s", note);
	/*
	 * LONGPIN_TEST_FAULT=wrong-page: the device writes the pattern once
	 * more, a page off, as a write that landed in the wrong pages would
	 * leave the buffer (through the pin: the pages stay clean)
	 */
	if (lp_test_fault("wrong-page")) {
		struct mem off = t->m;

		off.addr = (char *)t->m.addr + 4096;
		off.len = t->m.len - 4096;
		if (t->p.ops->dev_write(&t->p, &off, t->want, t->chk, t->tfd,
					note, sizeof(note)))
			return lp_lt_fail(t, "%s", note);
	}
	return 0;
}

/*
 * The pin, the device's write over the whole buffer and its check, the
 * unpin: what both cases share. @s gets the frames before the pin; the
 * dirty kB before the unpin and the pages the pin moved go to the row.
 */
static int write_through_pin(struct lt *t, struct pages_seen *s, bool pinned)
{
	bool frames = !lp_page_frames(t->m.addr, t->m.len, s->pfn);
	int ret = lp_lt_reg(t);

	if (ret)
		return ret;
	moved_count(t, s, frames);
	ret = dev_write(t);
	if (!ret)
		ret = written_check(t, t->p.ops->dev_writer);
	if (ret)
		return ret;
	dirty_at_unpin(t);
	if (pinned && lt_page_out(t, "while registered", NULL))
		return LT_SKIP;
	return lp_lt_unreg(t);
}

/*
 * After the unregistration (@ret 0): the buffer paged out, then judged by
 * what came back; @s freed either way.
 */
static int page_out_judge(struct lt *t, struct pages_seen *s, int ret)
{
	if (!ret && lt_page_out(t, "after unregistering", s))
		ret = LT_SKIP;
	if (!ret)
		ret = reclaim_judge(t, s, t->p.ops->dev_writer);
	seen_free(s);
	return ret;
}

/*
 * The device writes a pattern into the whole buffer, then it is unpinned,
 * reclaimed and read back. A write through the bvecs of a fixed buffer
 * dirties neither the PTE nor the page: unless the unpin marks the pages
 * dirty, reclaim takes them for clean and drops them (a clean shmem page is
 * a hole) and the data is lost (ib_umem_release() dirties an MR's pages).
 * reclaim-pinned (arg 1): page out while still registered (the pins keep
 * the pages, which end up clean and unmapped), unregister, map them again
 * by reading, page out again.
 */
static int lt_reclaim(struct lt *t)
{
	bool pinned = t->k->arg;
	struct pages_seen s;
	int ret = seen_alloc(&s, t->m.len);

	if (!ret)
		ret = write_through_pin(t, &s, pinned);
	if (!ret && pinned)	/* the backend's read prefault: it knows its holes */
		(t->ops->populate ? t->ops->populate : lp_mem_populate)(&t->m,
								      PF_READ);
	return page_out_judge(t, &s, ret);
}

/*
 * lazyfree: the buffer written, then MADV_FREE (its PTEs clean, the pages
 * lazily freeable: reclaim may drop them until they are written again),
 * registered, READ_FIXED into, unregistered, paged out. The device's write
 * through the pin is a write: unless the unpin marks the pages dirty,
 * reclaim drops what READ_FIXED put there. Allocators MADV_FREE the memory
 * they recycle, and private anonymous memory is what most fixed buffers
 * are. Every prefault row makes the same experiment.
 */
static int lt_lazyfree(struct lt *t)
{
	struct pages_seen s;
	int ret;

	lp_pattern_fill(t->m.addr, t->m.len, lp_now_ns() ^ 0x1a2ef4eeULL);
	if (madvise(t->m.addr, t->m.len, MADV_FREE)) {
		lp_lt_note(t, "MADV_FREE: %s: nothing is lazily freed",
			lp_errno_name(errno));
		return LT_SKIP;
	}
	ret = seen_alloc(&s, t->m.len);
	if (!ret)
		ret = write_through_pin(t, &s, false);
	return page_out_judge(t, &s, ret);
}

const struct lt_case lp_lt_case_reclaim = {
	.name = "reclaim",
	.help = "the device writes the buffer through the pin, then unpin, reclaim and read back: the data must survive (a contract names a known loss: defect)",
	.run = lt_reclaim, .skip_flags = MEM_RDONLY,
	.why_flags = "the buffer is read-only", .why_not = reclaim_why_not,
	.pinners = lp_lt_pinners_unpin,
};

const struct lt_case lp_lt_case_reclaim_pinned = {
	.name = "reclaim-pinned",
	.help = "as reclaim, and the buffer paged out once while still pinned",
	.run = lt_reclaim, .arg = 1,
	.skip_flags = MEM_RDONLY, .why_flags = "the buffer is read-only",
	.why_not = reclaim_why_not,
};

const struct lt_case lp_lt_case_lazyfree = {
	.name = "lazyfree",
	.help = "as reclaim, on private anonymous memory written and MADV_FREEd before the pin",
	.run = lt_lazyfree, .has = MEM_ANON, .lacks = MEM_RDONLY,
	.why = "MADV_FREE frees only private anonymous memory lazily",
	.pinners = lp_lt_pinners_unpin,
};
