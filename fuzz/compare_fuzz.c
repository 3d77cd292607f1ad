// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the whole of longpin-compare (read, join, report) on
 * two CSV files. The input is split at its first NUL byte into file A and
 * file B; compare.c is built with main renamed to compare_main.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int compare_main(int argc, char **argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/longpin-fuzz-compare.XXXXXX";

static void cleanup(void)
{
	char path[sizeof(dir) + 16];
	static const char *const names[] = { "/A.csv", "/B.csv", "/r.md" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static int put(const char *name, const uint8_t *data, size_t len)
{
	char path[sizeof(dir) + 16];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fwrite(data, 1, len, f) == len ? 0 : -1;
	return fclose(f) || ret ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char a[sizeof(dir) + 8], b[sizeof(dir) + 8], r[sizeof(dir) + 8];
	char *argv[] = { "longpin-compare", "--report", r, a, b, NULL };
	const uint8_t *nul = memchr(data, 0, size);
	size_t alen = nul ? (size_t)(nul - data) : size;

	static int ready;

	if (!ready) {
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
		ready = 1;
	}
	snprintf(a, sizeof(a), "%s/A.csv", dir);
	snprintf(b, sizeof(b), "%s/B.csv", dir);
	snprintf(r, sizeof(r), "%s/r.md", dir);
	if (put("A.csv", data, alen) ||
	    put("B.csv", nul ? nul + 1 : data, nul ? size - alen - 1 : size))
		abort();
	optind = 0;
	compare_main(5, argv);
	return 0;
}
