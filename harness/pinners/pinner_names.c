// SPDX-License-Identifier: GPL-2.0
/*
 * The names of the pinners --pinner takes and their help, apart from the
 * pinners themselves (pinner.c), so that the command line (opts.c, and
 * its fuzzer) needs neither gup_test nor libibverbs.
 */
#include <stdio.h>
#include <string.h>

#include "longpin.h"
#include "pinner.h"

static const struct {
	const char *name;
	const char *help;
} names[] = {
	{ "io_uring", "IORING_REGISTER_BUFFERS (the default)" },
	{ "gup-fast", "pin_user_pages_fast(FOLL_LONGTERM) via gup_test" },
	{ "gup", "pin_user_pages(FOLL_LONGTERM) via gup_test" },
	{ "rdma", "ibv_reg_mr() on an RDMA device (rxe0; LONGPIN_RDMA_DEV)" },
};

bool pinner_known(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(names[i].name, name))
			return true;
	return false;
}

void pinner_list_help(FILE *f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		fprintf(f, "                  %-9s %s\n", names[i].name,
			names[i].help);
}
