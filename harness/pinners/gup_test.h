/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctls of /sys/kernel/debug/gup_test (CONFIG_GUP_TEST), as 6.1's
 * mm/gup_test.h declares them; the kernel installs no uapi header for it.
 */
#ifndef LONGPIN_GUP_TEST_H
#define LONGPIN_GUP_TEST_H

#include <linux/types.h>
#include <sys/ioctl.h>

#define GUP_TEST_MAX_PAGES_TO_DUMP	8

struct gup_test {
	__u64 get_delta_usec;		/* out: the pin loop, microseconds */
	__u64 put_delta_usec;		/* out: the unpin */
	__u64 addr;
	__u64 size;			/* in: bytes; out: bytes walked */
	__u32 nr_pages_per_call;
	__u32 gup_flags;
	__u32 test_flags;
	__u32 which_pages[GUP_TEST_MAX_PAGES_TO_DUMP];
};

#define PIN_FAST_BENCHMARK	_IOWR('g', 2, struct gup_test)
#define PIN_LONGTERM_BENCHMARK	_IOWR('g', 3, struct gup_test)

/*
 * FOLL_WRITE has been 1 in every kernel (a #define in 6.1's mm.h, 1 << 0
 * in the enum of mm_types.h since 6.2); FOLL_LONGTERM moved, and is asked
 * of the running kernel (kflags.c)
 */
#define LP_FOLL_WRITE		0x01

#endif
