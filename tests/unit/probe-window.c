// SPDX-License-Identifier: GPL-2.0
/*
 * probe-window: --mmap-probe's prober counts of each call only its time
 * inside the registration windows (harness/pinners/uring_cycles.c,
 * lp_probe_in_windows()). Exit 0, or 1 naming the first case that fails.
 */
#include <stdio.h>
#include <stdint.h>

#include "uring.h"

struct pw_case {
	const char *what;
	struct probe_call call[4];
	size_t ncall;
	uint64_t win[6];
	unsigned int nwin;
	size_t want_k;
	uint32_t want[4];
};

static const struct pw_case cases[] = {
	{ "a call inside a window counts whole",
	  { { 150, 20 } }, 1, { 100, 200 }, 1, 1, { 20 } },
	{ "a call held up before the window counts from its start",
	  { { 0, 130 } }, 1, { 100, 200 }, 1, 1, { 30 } },
	{ "a call that outlasts the window counts to its end",
	  { { 190, 50 } }, 1, { 100, 200 }, 1, 1, { 10 } },
	{ "a call around the whole window counts the window",
	  { { 50, 500 } }, 1, { 100, 200 }, 1, 1, { 100 } },
	{ "calls before, between and after windows do not count",
	  { { 10, 20 }, { 210, 20 }, { 400, 5 } }, 3,
	  { 100, 200, 300, 350 }, 2, 0, { 0 } },
	{ "a call over two windows counts both parts",
	  { { 150, 200 } }, 1, { 100, 200, 300, 400 }, 2, 1, { 100 } },
	{ "each overlapping call counts on its own",
	  { { 90, 20 }, { 120, 5 }, { 310, 100 } }, 3,
	  { 100, 200, 300, 350 }, 2, 3, { 10, 5, 40 } },
	{ "a call that touches a window's edge counts nothing of it",
	  { { 80, 20 } }, 1, { 100, 200 }, 1, 1, { 0 } },
};

static int pw_check(const struct pw_case *c)
{
	uint32_t ns[4] = { 0 };
	size_t k, i;

	k = lp_probe_in_windows(c->call, c->ncall, c->win, c->nwin, ns);
	if (k != c->want_k) {
		printf("FAIL %s: %zu calls counted, want %zu\n", c->what, k,
		       c->want_k);
		return 1;
	}
	for (i = 0; i < k; i++) {
		if (ns[i] != c->want[i]) {
			printf("FAIL %s: call %zu counts %u ns, want %u\n",
			       c->what, i, ns[i], c->want[i]);
			return 1;
		}
	}
	printf("ok %s\n", c->what);
	return 0;
}

int main(void)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		bad |= pw_check(&cases[i]);
	return bad;
}
