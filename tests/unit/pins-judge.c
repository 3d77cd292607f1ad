// SPDX-License-Identifier: GPL-2.0
/*
 * pins-judge: what a pin window's nr_foll_pin figures say of the run's
 * own pins (harness/core/pins.c's lp_pins_judge()). The counters are the
 * machine's: a leak or a balance is judged only when the run's own pins
 * explain the movement (acquired between the pages of its pins that held
 * and twice the pages of every attempt, no more released than acquired,
 * nothing moved while it pinned nothing), else the check is unchecked
 * (LP_PINS_FOREIGN), never a pass or a failure; fewer acquired than its
 * own pins is a failure whatever else pinned. Exit 0, or 1 naming the
 * first case that fails.
 */
#include <stdio.h>
#include <string.h>

#include "longpin.h"

struct pins_case {
	const char *what;
	long acq, rel, pinned, tried;	/* pages; tried: every attempt */
	bool idle_moved;		/* moved while the run pinned nothing */
	enum lp_pins_state want;
};

static const struct pins_case cases[] = {
	{ "its own pins, all given back", 1024, 1024, 1024, 1024, false, LP_PINS_BALANCED },
	{ "10 cycles of 256 pages, balanced", 2560, 2560, 2560, 2560, false, LP_PINS_BALANCED },
	{ "GUP pinned again after migrating (6.12 ibv_reg_mr read-only)", 2048, 2048, 1024, 1024, false, LP_PINS_BALANCED },
	{ "a refused attempt that pinned part and gave it back", 300, 300, 0, 1024, false, LP_PINS_BALANCED },
	{ "its own pins, 16 kept", 1024, 1008, 1024, 1024, false, LP_PINS_LEAK },
	{ "vfio's device-dax pages kept", 2048, 1024, 2048, 2048, false, LP_PINS_LEAK },
	{ "fewer acquired than its pins that held", 512, 512, 1024, 1024, false, LP_PINS_SHORT },
	{ "another process pinned a lot meanwhile", 1024 + 186247, 1024, 1024, 1024, false, LP_PINS_FOREIGN },
	{ "another process released its pins meanwhile", 1024, 1024 + 193585, 1024, 1024, false, LP_PINS_FOREIGN },
	{ "released one page more than acquired", 1024, 1025, 1024, 1024, false, LP_PINS_FOREIGN },
	{ "balanced, but moved while the run pinned nothing", 1024, 1024, 1024, 1024, true, LP_PINS_FOREIGN },
	{ "a leak's figures, but moved while the run pinned nothing", 1024 + 662, 1024, 1024, 1024, true, LP_PINS_FOREIGN },
	{ "fewer than its own even with others moving", 100, 100, 1024, 1024, true, LP_PINS_FOREIGN },
};

static const char *const names[] = {
	[LP_PINS_OFF] = "off", [LP_PINS_BALANCED] = "balanced",
	[LP_PINS_LEAK] = "leak", [LP_PINS_SHORT] = "short",
	[LP_PINS_FOREIGN] = "foreign",
};

int main(void)
{
	const struct pins_case *c;
	enum lp_pins_state got;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct lp_pins w = { .fd = -1 };

		c = &cases[i];
		w.acq = c->acq;
		w.rel = c->rel;
		lp_pins_own(&w, c->pinned, c->tried);
		if (c->idle_moved)
			snprintf(w.why, sizeof(w.why), "moved while idle");
		got = lp_pins_judge(&w);
		if (got != c->want) {
			printf("FAIL %s: %s (%s), want %s\n", c->what,
			       names[got], w.why, names[c->want]);
			return 1;
		}
		if ((got == LP_PINS_FOREIGN || got == LP_PINS_SHORT) && !w.why[0]) {
			printf("FAIL %s: %s without a reason\n", c->what,
			       names[got]);
			return 1;
		}
	}
	printf("ok: %zu windows judged\n", ARRAY_SIZE(cases));
	return 0;
}
