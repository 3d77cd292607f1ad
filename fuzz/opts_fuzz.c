// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for longpin's option parser (harness/core/opts.c, with
 * the table of commands of harness/cli/cmd.c): the input is split at NUL
 * or newline bytes into argv[1..]. Run with -close_fd_mask=3: usage
 * errors and --help print a lot.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "longpin.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2], *p;
	struct opts o;
	int argc = 1;
	size_t i;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "longpin";
	for (p = buf, i = 0; i <= size && argc <= MAX_ARGS; i++) {
		if (buf[i] == '\n' || buf[i] == '\0') {
			buf[i] = '\0';
			argv[argc++] = p;
			p = buf + i + 1;
		}
	}
	argv[argc] = NULL;
	lp_opts_parse(&o, lp_cmds, argc, argv);
	free(buf);
	return 0;
}
