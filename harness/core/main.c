// SPDX-License-Identifier: GPL-2.0
/*
 * longpin: register an io_uring fixed buffer of one memory type, compare
 * the kernel's answer with the expected contract, measure registration
 * and fixed-buffer I/O, write CSV. See README.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <liburing.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/uio.h>
#include <unistd.h>

#include "longpin.h"
#include "mem_ops.h"
#include "pinner.h"

static void on_signal(int sig)
{
	/* Temp files are unlinked at creation; the kernel drops the rest. */
	static const char msg[] = "longpin: interrupted\n";

	ssize_t n = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)n;
	_exit(128 + sig);
}

static int resolve_contract(const struct opts *o, const struct contract **c)
{
	const char *why;

	if (o->expect) {
		*c = contract_by_name(o->expect);
		if (!*c)
			return lp_err(LP_EUSAGE,
				      "--expect %s: no such contract (longpin --list-contracts shows them)",
				      o->expect);
		return LP_OK;
	}
	*c = contract_select(&why);
	if (!*c || !o->quiet)
		fprintf(stderr, "longpin: %s\n", why);
	return LP_OK;
}

/* --print-expected: what the contract says, for other tools (fio rows). */
static int print_expected(const struct opts *o, const struct contract *c)
{
	bool nofault = false;
	int pf, err = 0;
	char key[48];
	const char *pin = pinner_key(key, sizeof(key), o);

	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o->prefaults & (1u << pf)))
			continue;
		printf("%s\t%s\t%s\t%zu\t", contract_name(c), o->mem,
		       prefault_name(pf), o->size);
		if (!contract_lookup_pinner(c, pin, o->mem, pf, o->size, &err,
					    &nofault))
			printf("-\t-\n");
		else if (!err)
			printf("0\t%d\n", nofault);
		else
			printf("-%s\t%d\n", errno_name(err), nofault);
	}
	return LP_OK;
}

int main(int argc, char **argv)
{
	const struct mem_ops *ops;
	const struct contract *c;
	struct pinner p = { 0 };
	struct opts o;
	int ret, worst = LP_OK, pf;
	bool header = true;

	/* rows reach a pipe (tee, a log) as they are made, not at exit */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the modes of fio-jobs/, with their own arguments (fio_import.c) */
	if (argc > 1 && !strncmp(argv[1], "--fio-", 6))
		return fio_main(argc - 1, argv + 1);
	ret = opts_parse(&o, argc, argv);
	if (ret)
		return ret < 0 ? LP_OK : ret;
	if (o.list && o.torture_list)
		return torture_list();
	if (o.list)
		return lifetime_list(o.lifetime);
	ops = mem_find(o.mem);
	if (!ops)
		return lp_err(LP_EUSAGE,
			      "unknown memory type '%s': longpin --list shows the %s",
			      o.mem, "known ones");
	mem_place_from_env(ops, &o);
	if (o.print_expected) {
		o.quiet = true;
		ret = resolve_contract(&o, &c);
		return ret == LP_OK ? print_expected(&o, c) : ret;
	}
	ret = mem_check_size(ops, &o);
	/* a pinner's limits (io_uring: RLIMIT_MEMLOCK), checked up front */
	if (ret == LP_OK && o.torture && !o.no_memlock_check)
		ret = io_uring_memlock_check(&o, 2);
	else if (ret == LP_OK && pinner_find(o.pinner)->ops->check)
		ret = pinner_find(o.pinner)->ops->check(&o);
	/* --torture checks and writes its own CSV */
	if (ret == LP_OK && !o.torture)
		ret = csv_check(o.csv, NULL);
	if (ret == LP_OK && !o.torture && o.csv && !strcmp(o.csv, "-"))
		ret = csv_to_stdout();
	if (ret == LP_OK)
		ret = resolve_contract(&o, &c);
	if (ret != LP_OK)
		return ret;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (o.lifetime)
		return lifetime_main(ops, &o, c);
	if (o.torture)
		return torture_main(ops, &o, c);
	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o.prefaults & (1u << pf)))
			continue;
		ret = pinner_open(&p, &o);
		if (ret == LP_OK)
			ret = row_run(&p, ops, &o, c, pf, header);
		pinner_close(&p);
		header = false;
		if (ret == LP_EUSAGE || ret == LP_SKIP)
			return ret;
		if (ret > worst)
			worst = ret;
	}
	return worst;
}
