// SPDX-License-Identifier: GPL-2.0
/*
 * --lifetime reclaim, reclaim-pinned, lazyfree: what the device wrote
 * through the pin (io_uring's READ_FIXED, rdma's RDMA WRITE) after unpin
 * and reclaim.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lifetime.h"

/* Bytes of the buffer that no longer hold the pattern READ_FIXED put there. */
static size_t bytes_lost(struct lt *t)
{
	const char *buf = t->m.addr;
	size_t off, i, n, lost = 0;

	for (off = 0; off < t->m.len; off += n) {
		n = t->m.len - off < t->chk ? t->m.len - off : t->chk;
		if (!memcmp(buf + off, t->want, n))
			continue;
		for (i = 0; i < n; i++)
			lost += buf[off + i] != t->want[i];
	}
	return lost;
}

/*
 * After every step held: @lost bytes of the buffer differ from what
 * @writer put there. Some: the data check failed, -EIO, and the row has
 * shown the one thing a "defect" contract row names (t->lost); none: 0.
 */
static int lt_data_lost(struct lt *t, size_t lost, const char *writer)
{
	if (!lost) {
		strcpy(t->check, "ok");
		return 0;
	}
	lt_note(t, "data lost: %zu of %zu bytes differ from what %s wrote",
		lost, t->m.len, writer);
	strcpy(t->check, "mismatch");
	t->lost = true;
	return -EIO;
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

/*
 * Ask reclaim for the buffer's pages; LT_SKIP when it refuses (nothing
 * was paged out, so the case would test nothing). After the page-out,
 * drop the clean page cache of file types (root only).
 */
static int lt_page_out(struct lt *t, const char *when)
{
	const char *why = reclaim_why_not(t->ops);
	int fd;

	if (why) {
		lt_note(t, "%s", why);
		return LT_SKIP;
	}
	if (madvise(t->m.addr, t->m.len, MADV_PAGEOUT)) {
		lt_note(t, "MADV_PAGEOUT %s: %s: nothing was paged out", when,
			errno_name(errno));
		return LT_SKIP;
	}
	if (!(t->ops->flags & MEM_FILE) || geteuid())
		return 0;
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		lt_note(t, "drop_caches: %s", errno_name(errno));
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
		lt_note(t, "%s", note);
		return LT_SKIP;
	}
	return ret ? lt_fail(t, "%s", note) : 0;
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
	int ret;

	ret = lt_reg(t);
	if (!ret)
		ret = dev_write(t);
	if (ret)
		return ret;
	if (pinned && lt_page_out(t, "while registered"))
		return LT_SKIP;
	ret = lt_unreg(t);
	if (ret)
		return ret;
	if (pinned)	/* the backend's read prefault: it knows its holes */
		(t->ops->populate ? t->ops->populate : mem_populate)(&t->m,
								      PF_READ);
	if (lt_page_out(t, "after unregistering"))
		return LT_SKIP;
	return lt_data_lost(t, bytes_lost(t), t->p.ops->dev_writer);
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
	int ret;

	pattern_fill(t->m.addr, t->m.len, now_ns() ^ 0x1a2ef4eeULL);
	if (madvise(t->m.addr, t->m.len, MADV_FREE)) {
		lt_note(t, "MADV_FREE: %s: nothing is lazily freed",
			errno_name(errno));
		return LT_SKIP;
	}
	ret = lt_reg(t);
	if (!ret)
		ret = dev_write(t);
	if (!ret)
		ret = lt_unreg(t);
	if (ret)
		return ret;
	if (lt_page_out(t, "after unregistering"))
		return LT_SKIP;
	return lt_data_lost(t, bytes_lost(t), t->p.ops->dev_writer);
}

const struct lt_case lt_case_reclaim = {
	.name = "reclaim",
	.help = "the device writes the buffer through the pin, then unpin, reclaim and read back: the data must survive (a contract names a known loss: defect)",
	.run = lt_reclaim, .skip_flags = MEM_RDONLY,
	.why_flags = "the buffer is read-only", .why_not = reclaim_why_not,
	.pinners = lt_pinners_unpin,
};

const struct lt_case lt_case_reclaim_pinned = {
	.name = "reclaim-pinned",
	.help = "as reclaim, and the buffer paged out once while still pinned",
	.run = lt_reclaim, .arg = 1,
	.skip_flags = MEM_RDONLY, .why_flags = "the buffer is read-only",
	.why_not = reclaim_why_not,
};

static const char *const lazyfree_types[] = { "anon", "anon-thp", NULL };

const struct lt_case lt_case_lazyfree = {
	.name = "lazyfree",
	.help = "as reclaim, on private anonymous memory written and MADV_FREEd before the pin",
	.run = lt_lazyfree, .types = lazyfree_types,
	.why = "MADV_FREE frees only private anonymous memory lazily",
	.pinners = lt_pinners_unpin,
};
