// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the whole of longpin-compare (read, join, report) on
 * two CSV files. The input is split at its first NUL byte into file A and
 * file B; compare.c (with compare_report.c and compare_plot.c) is built
 * with main renamed to compare_main.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int compare_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { CSV_A, CSV_B, REPORT, NPATHS };

static char dir[] = "/tmp/longpin-fuzz-compare.XXXXXX";
static char path[NPATHS][sizeof(dir) + 8];

static void cleanup(void)
{
	int i;

	for (i = 0; i < NPATHS; i++)
		unlink(path[i]);
	rmdir(dir);
}

/* The temp dir and the paths in it, once per process. */
static void setup(void)
{
	static const char *const name[NPATHS] = { "A.csv", "B.csv", "r.md" };
	int i;

	if (!mkdtemp(dir))
		abort();
	for (i = 0; i < NPATHS; i++)
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name[i]);
	atexit(cleanup);
}

static int put(const char *file, const uint8_t *data, size_t len)
{
	FILE *f = fopen(file, "w");
	int ret;

	if (!f)
		return -1;
	ret = fwrite(data, 1, len, f) == len ? 0 : -1;
	return fclose(f) || ret ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "longpin-compare", "--report", path[REPORT],
			 path[CSV_A], path[CSV_B], NULL };
	const uint8_t *nul = memchr(data, 0, size);
	size_t alen = nul ? (size_t)(nul - data) : size;
	static bool ready;

	if (!ready) {
		setup();
		ready = true;
	}
	if (put(path[CSV_A], data, alen) ||
	    put(path[CSV_B], nul ? nul + 1 : data, nul ? size - alen - 1 : size))
		abort();
	optind = 0;
	compare_main(5, argv);
	return 0;
}
