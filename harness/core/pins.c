// SPDX-License-Identifier: GPL-2.0
/*
 * A run's pin window: the stretch in which it pins, and what the
 * machine-wide nr_foll_pin_acquired/released (/proc/vmstat) can say of
 * its own pins there. Any process that pins moves them: another longpin,
 * an io_uring or RDMA application, any O_DIRECT I/O.
 *
 * Every longpin process holds one machine-wide lock while it pins
 * (flock of /run/lock/longpin-pins.lock, else /tmp's; one file for every
 * checkout and user): shared while it only pins, exclusive while its
 * counters judge, so that no other longpin pins inside a window that is
 * judged. Anything else may still pin, so a judged window counts only
 * when the counters moved by what the run's own pins explain:
 *
 *  - nothing acquired or released while the run pinned nothing, just
 *    before its first pin and after its last unpin (LP_PINS_QUIET_MS);
 *  - acquired at least the pages of its pins that held (fewer is a
 *    failure of the kernel's counting, never another's doing) and at most
 *    twice the pages of every attempt (GUP pins a page again after
 *    migrating one it may not pin long-term);
 *  - no more released than acquired.
 *
 * Then acquired - released is the run's leak (0: balanced); otherwise the
 * check is unchecked, and why says so with the figures. The counters are
 * exact only after /proc/sys/vm/stat_refresh, which root alone may write:
 * without it nothing is judged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "longpin.h"

#define LP_PINS_QUIET_MS	50	/* a probe of the counters while idle */
#define LP_PINS_SETTLE_MS	1000	/* an unpin still in flight at the end */
#define LP_PINS_WAIT_S		900	/* for another longpin's pins */

static const char *const lock_paths[] = {
	"/run/lock/longpin-pins.lock", "/tmp/longpin-pins.lock",
};

/* The lock file, opened read-only (flock needs no more), or -1. */
static int lock_open(const char **path)
{
	const char *env = getenv("LONGPIN_PIN_LOCK");
	size_t i, n = env && *env ? 1 : ARRAY_SIZE(lock_paths);
	int fd = -1;

	for (i = 0; i < n && fd < 0; i++) {
		*path = env && *env ? env : lock_paths[i];
		fd = open(*path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT)
			continue;
		/*
		 * created 0666 for every user; never O_CREAT on a file that
		 * exists: a sticky /tmp refuses another user's (protected_regular)
		 */
		fd = open(*path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			fchmod(fd, 0666);
		else if (errno == EEXIST)
			fd = open(*path, O_RDONLY | O_CLOEXEC);
	}
	return fd;
}

/* Hold the lock (@excl: exclusive), waiting for another longpin's pins. */
static int lock_take(bool excl, char *why, size_t n)
{
	const char *path = NULL;
	int fd = lock_open(&path), op = excl ? LOCK_EX : LOCK_SH;
	unsigned int ms = 0;
	bool said = false;

	if (fd < 0)
		return -1;
	while (flock(fd, op | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		if (ms >= LP_PINS_WAIT_S * 1000) {
			snprintf(why, n, "another longpin held %s for %u s",
				 path, LP_PINS_WAIT_S);
			close(fd);
			return -1;
		}
		if (ms == 2000 && isatty(STDERR_FILENO) && !said)
			said = fprintf(stderr,
				       "longpin: waiting for another longpin's pins (%s)\n",
				       path) > 0;
		usleep(10000);
		ms += 10;
	}
	return fd;
}

/* The counters, exact (root: stat_refresh first), or false. */
static bool counters(long *acq, long *rel)
{
	return !geteuid() && !lp_vmstat_pins(acq, rel);
}

void lp_pins_begin(struct lp_pins *w, bool judge)
{
	long a, r;

	memset(w, 0, sizeof(*w));
	w->fd = lock_take(judge, w->why, sizeof(w->why));
	w->open = true;
	if (!judge)
		return;
	if (w->why[0]) {
		w->state = LP_PINS_FOREIGN;
		return;
	}
	if (!counters(&a, &r)) {
		snprintf(w->why, sizeof(w->why),
			 geteuid() ? "not root (no stat_refresh: the counters are not exact)" :
				     "no nr_foll_pin counters in /proc/vmstat");
		return;
	}
	usleep(LP_PINS_QUIET_MS * 1000);
	if (!counters(&w->acq0, &w->rel0))
		return;
	w->judge = true;
	if (w->acq0 != a || w->rel0 != r)
		snprintf(w->why, sizeof(w->why),
			 "other pinners moved nr_foll_pin before this run pinned: acquired %+ld released %+ld in %d ms",
			 w->acq0 - a, w->rel0 - r, LP_PINS_QUIET_MS);
}

void lp_pins_own(struct lp_pins *w, long pinned, long tried)
{
	__atomic_add_fetch(&w->own_min, pinned, __ATOMIC_RELAXED);
	__atomic_add_fetch(&w->own_max, 2 * tried, __ATOMIC_RELAXED);
}

/* Judge the window's figures (unit-tested: tests/unit/pins-judge.c). */
enum lp_pins_state lp_pins_judge(struct lp_pins *w)
{
	if (w->why[0])
		return LP_PINS_FOREIGN;
	if (w->acq < w->own_min) {
		snprintf(w->why, sizeof(w->why),
			 "nr_foll_pin acquired %+ld, fewer than the %ld pages this run pinned",
			 w->acq, w->own_min);
		return LP_PINS_SHORT;
	}
	if (w->acq > w->own_max || w->rel > w->acq) {
		snprintf(w->why, sizeof(w->why),
			 "other pinners moved nr_foll_pin: acquired %+ld released %+ld, more than this run's pins explain (%ld to %ld pages)",
			 w->acq, w->rel, w->own_min, w->own_max);
		return LP_PINS_FOREIGN;
	}
	return w->acq == w->rel ? LP_PINS_BALANCED : LP_PINS_LEAK;
}

enum lp_pins_state lp_pins_end(struct lp_pins *w)
{
	unsigned int ms;
	long a, r;

	if (!w->open)
		return w->state;
	w->open = false;
	if (w->judge && counters(&a, &r)) {
		/* an unpin still in flight (6.1 releases from a worker) */
		for (ms = 0; a - r != w->acq0 - w->rel0 &&
			     ms < LP_PINS_SETTLE_MS; ms += 100) {
			usleep(100000);
			counters(&a, &r);
		}
		w->acq = a - w->acq0;
		w->rel = r - w->rel0;
		usleep(LP_PINS_QUIET_MS * 1000);
		if (counters(&a, &r) && (a - w->acq0 != w->acq ||
					 r - w->rel0 != w->rel) && !w->why[0])
			snprintf(w->why, sizeof(w->why),
				 "other pinners moved nr_foll_pin after this run's last unpin: acquired %+ld released %+ld in %d ms",
				 a - w->acq0 - w->acq, r - w->rel0 - w->rel,
				 LP_PINS_QUIET_MS);
		w->state = lp_pins_judge(w);
	} else if (w->judge) {
		w->judge = false;
	}
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	return w->state;
}
