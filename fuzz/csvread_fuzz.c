// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: csv_parse() must not crash or leak on any input. */
#include <stddef.h>
#include <stdint.h>

#include "csvread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csv c;
	char err[256];
	size_t r;
	int i;

	if (csv_parse((const char *)data, size, "fuzz", &c, err, sizeof(err)))
		return 0;
	for (r = 0; r < c.nrows; r++)
		for (i = 0; i < c.ncols; i++)
			(void)csv_get(&c, r, i);
	(void)csv_col(&c, "verdict");
	csv_free(&c);
	return 0;
}
