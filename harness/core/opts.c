// SPDX-License-Identifier: GPL-2.0
/* The command line: usage, options, their checks (fuzzed: fuzz/opts_fuzz.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "longpin.h"
#include "mem_ops.h"
#include "pinner.h"

/* The other modes' options: --lifetime, --torture and theirs. */
static void usage_modes(FILE *f)
{
	fprintf(f,
"  --lifetime CASE run CASE instead of the measurement: munmap, fork,\n"
"                  truncate, punch, mremap, reclaim, reclaim-pinned,\n"
"                  lazyfree, unreg-inflight, close-ring,\n"
"                  update, cycles (10000 or --cycles N), memlock, limits;\n"
"                  with --pinner rdma: cycles, reclaim, lazyfree (an RDMA\n"
"                  WRITE)\n"
"  --torture SEC   race a thread per operation on one buffer for SEC\n"
"                  seconds (register/update, fixed I/O, remap, mremap,\n"
"                  fork, madvise, truncate/punch, THP flips, mprotect,\n"
"                  migration), judge every answer and the kernel log;\n"
"                  its own CSV (README); --size default 4M (4 huge pages\n"
"                  for hugetlb and devdax types)\n"
"  --seed N        --torture: repeat a run's choices (printed on stderr)\n"
"  --ops LIST      --torture: only these operations (comma list)\n"
"  --pinner NAME   pin with NAME instead of io_uring (README \"Pinners\"):\n");
	pinner_list_help(f);
	fprintf(f,
"  --readonly-pin  --pinner gup-fast|gup|rdma: a pin the device only reads\n"
"                  (no FOLL_WRITE; RDMA: remote read access)\n"
"  --list          print the memory types, one a line; with --lifetime CASE,\n"
"                  those CASE applies to\n"
"  --concurrent    --lifetime cycles beside other pinning processes: the\n"
"                  system-wide nr_foll_pin balance is left to the caller\n"
"                  (VmPin, per process, is still checked)\n");
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: longpin --mem TYPE [--size N] [--prefault none|read|write|all]\n"
"               [--dir DIR] [--dev /dev/daxX.Y] [--target FILE|BLOCKDEV]\n"
"               [--bs N] [--qd N] [--ios N | --runtime SEC] [--repeat N]\n"
"               [--cycles N [--mmap-probe]] [--expect CONTRACT] [--csv FILE]\n"
"               [--no-io] [--quiet] [--no-memlock-check]\n"
"       longpin --lifetime CASE --mem TYPE [--size N] [--prefault P]\n"
"               [--cycles N [--concurrent]] [--pinner rdma] [--csv FILE]\n"
"       longpin --fio-memtype MEM [FS_TYPE DAX] | --fio-result ERROR\n"
"       longpin --fio-import RAWDIR OUT.csv ACCEL < JOBS.tsv\n"
"       longpin --print-expected --mem TYPE [--size N] [--prefault P]\n"
"               [--expect CONTRACT]\n"
"       longpin --torture SECONDS --mem TYPE [--size N] [--seed N]\n"
"               [--ops LIST] [--concurrent] [--csv FILE]\n"
"       longpin --lifetime CASE --list\n"
"       longpin --list | --list-types | --list-contracts | --print-accel\n"
"       longpin --help | --version\n"
"\n"
"Registers one io_uring fixed buffer of memory TYPE (IORING_REGISTER_BUFFERS,\n"
"a long-term FOLL_WRITE pin), checks the kernel's answer against the\n"
"contract of the running kernel, measures registration and fixed-buffer\n"
"I/O, and appends a CSV row per prefault.\n"
"\n"
"  --size N        buffer size, N[K|M|G] (default 16M)\n"
"  --prefault P    none, read, write (default), a comma list, or all\n"
"  --dir DIR       directory for file types; else $LONGPIN_FILE_DIR\n"
"                  (page cache), $LONGPIN_DAX_DIR (fsdax), $LONGPIN_TMPFS_DIR\n"
"                  (tmpfs, default /dev/shm)\n"
"  --dev PATH      device-dax node for devdax; else $LONGPIN_DEVDAX\n"
"  --target PATH   file or block device for I/O (default: a temp file\n"
"                  next to the memory, or in $TMPDIR or /tmp); an existing\n"
"                  non-empty file is refused: longpin writes over it\n"
"  --target-overwrite  let --target write over an existing file\n"
"  --bs N          I/O block size (default 4K)\n"
"  --qd N          I/O queue depth (default 8)\n"
"  --ios N         I/Os per timed pass (default 2048)\n"
"  --runtime SEC   seconds per timed pass instead of --ios\n"
"  --repeat N      timed passes of each kind (default 3)\n"
"  --cycles N      N more register/unregister cycles after the measured\n"
"                  one (times: cycle_reg_ns_*; VmPin checked after all)\n"
"  --mmap-probe    meanwhile a second thread times mmap+munmap of a page\n"
"  --expect NAME   contract to check against (--list-contracts)\n"
"  --csv FILE      append rows to FILE (- for stdout)\n"
"  --no-io         register only, no I/O\n"
"  --quiet         no table on stdout\n");
	usage_modes(f);
	fprintf(f,
"  --no-memlock-check  do not refuse a size above RLIMIT_MEMLOCK up front:\n"
"                  the kernel answers (-ENOMEM); --lifetime memlock implies it\n"
"  --print-expected  print the contract's answer for TYPE, one line per\n"
"                  prefault: CONTRACT TYPE PREFAULT SIZE EXPECTED NOFAULT\n"
"                  (tab separated; '-' when unknown), and set nothing up\n"
"  --list-types    every memory type, tab-separated: map, backing, huge\n"
"                  pages, the option and variable of its place, where that\n"
"                  resolves now ('-': nowhere) and what the place is\n"
"  --print-accel   print what runs this CPU (the CSV's accel column): none\n"
"                  (bare metal), tcg (QEMU's emulator: MiB/s are not hardware\n"
"                  figures), kvm, hyperv, xen, vmware, bhyve or vm\n"
"  --inject corrupt|leak|fill  self-tests: corrupt the data check's target,\n"
"                  keep a second pin past unregistration, or fill the\n"
"                  file system of the buffer's file (or of the I/O target)\n"
"                  after its free-space check, as another writer would\n"
"  --fio-memtype MEM  the memory type of fio's mem=MEM: MEMTYPE FS_TYPE DAX\n"
"                  (tab separated; '-' none), the file system of mem=TYPE:FILE\n"
"                  asked as the file types ask it, or given\n"
"  --fio-result ERROR  fio's error as the CSV's result: 0 or -ENAME\n"
"  --fio-import RAWDIR OUT.csv ACCEL  fio-jobs/fio2csv.sh's rows: one per\n"
"                  line of RAWDIR/meta.tsv from fio's jobs on stdin\n"
"\n"
"Memory types:\n");
	mem_list_help(f);
	fprintf(f,
"\nExit status: 0 all verdicts pass, 1 a verdict failed, data mismatch or\n"
"pin leak, 2 usage or environment error, 77 TYPE cannot be set up here.\n");
}

enum { OPT_LIST = 256, OPT_LIST_TYPES, OPT_LIST_CONTRACTS, OPT_NO_IO, OPT_INJECT,
       OPT_VERSION, OPT_PRINT_ACCEL, OPT_RUNTIME, OPT_CYCLES, OPT_MMAP_PROBE,
       OPT_PRINT_EXPECTED, OPT_LIFETIME, OPT_NO_MEMLOCK_CHECK,
       OPT_CONCURRENT, OPT_TARGET_OVERWRITE, OPT_TORTURE, OPT_SEED,
       OPT_OPS, OPT_PINNER, OPT_READONLY_PIN };

static const struct option long_opts[] = {
	{ "mem", required_argument, NULL, 'm' },
	{ "size", required_argument, NULL, 's' },
	{ "prefault", required_argument, NULL, 'p' },
	{ "dir", required_argument, NULL, 'd' },
	{ "dev", required_argument, NULL, 'D' },
	{ "target", required_argument, NULL, 't' },
	{ "bs", required_argument, NULL, 'b' },
	{ "qd", required_argument, NULL, 'q' },
	{ "ios", required_argument, NULL, 'n' },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "repeat", required_argument, NULL, 'r' },
	{ "expect", required_argument, NULL, 'e' },
	{ "csv", required_argument, NULL, 'c' },
	{ "no-io", no_argument, NULL, OPT_NO_IO },
	{ "cycles", required_argument, NULL, OPT_CYCLES },
	{ "mmap-probe", no_argument, NULL, OPT_MMAP_PROBE },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "inject", required_argument, NULL, OPT_INJECT },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "list-types", no_argument, NULL, OPT_LIST_TYPES },
	{ "list-contracts", no_argument, NULL, OPT_LIST_CONTRACTS },
	{ "print-expected", no_argument, NULL, OPT_PRINT_EXPECTED },
	{ "lifetime", required_argument, NULL, OPT_LIFETIME },
	{ "no-memlock-check", no_argument, NULL, OPT_NO_MEMLOCK_CHECK },
	{ "concurrent", no_argument, NULL, OPT_CONCURRENT },
	{ "target-overwrite", no_argument, NULL, OPT_TARGET_OVERWRITE },
	{ "torture", required_argument, NULL, OPT_TORTURE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "ops", required_argument, NULL, OPT_OPS },
	{ "pinner", required_argument, NULL, OPT_PINNER },
	{ "readonly-pin", no_argument, NULL, OPT_READONLY_PIN },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "print-accel", no_argument, NULL, OPT_PRINT_ACCEL },
	{ NULL, 0, NULL, 0 },
};

/* A positive integer option within [lo, hi]. */
static int parse_uint(const char *opt, const char *arg, unsigned long lo,
		      unsigned long hi, unsigned long *out)
{
	size_t v;

	if (parse_size(arg, &v) || v < lo || v > hi)
		return lp_err(LP_EUSAGE, "%s %s: give a number from %lu to %lu",
			      opt, arg, lo, hi);
	*out = v;
	return LP_OK;
}

/* The options that take a number (or a list of prefaults). */
static int parse_num(struct opts *o, int c, const char *arg)
{
	unsigned long v = 0;
	char *end;
	int ret = LP_OK;

	switch (c) {
	case OPT_CYCLES:
		ret = parse_uint("--cycles", arg, 1, 10000000, &v);
		o->cycles = v;
		break;
	case OPT_TORTURE:
		/* --torture --list: the memory types it applies to */
		if (!strcmp(arg, "--list")) {
			o->list = o->torture_list = true;
			break;
		}
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (*arg < '0' || *arg > '9' || *end || errno || !v || v > 3600)
			return lp_err(LP_EUSAGE,
				      "--torture %s: give whole seconds from 1 to 3600",
				      arg);
		o->torture = v;
		break;
	case OPT_SEED:
		errno = 0;
		o->seed = strtoull(arg, &end, 0);
		if (*arg < '0' || *arg > '9' || *end || errno)
			return lp_err(LP_EUSAGE,
				      "--seed %s: give the number longpin printed (0 to 2^64-1)",
				      arg);
		o->have_seed = true;
		break;
	case 's':
		ret = parse_size(arg, &o->size);
		if (ret == -ERANGE || (!ret && o->size > LP_SIZE_MAX))
			return lp_err(LP_EUSAGE,
				      "--size %s is too large: give at most %luG",
				      arg, LP_SIZE_MAX / GiB);
		if (ret)
			return lp_err(LP_EUSAGE,
				      "--size %s: give bytes or N with K, M or G (e.g. 64M)",
				      arg);
		o->have_size = true;
		break;
	case 'p':
		if (prefault_parse(arg, &o->prefaults))
			return lp_err(LP_EUSAGE,
				      "--prefault %s: give none, read, write, a comma list or all",
				      arg);
		break;
	case 'b':
		ret = parse_uint("--bs", arg, 512, 16 * MiB, &v);
		if (!ret && v % 512)
			ret = lp_err(LP_EUSAGE, "--bs %s: give a multiple of 512", arg);
		o->bs = v;
		break;
	case 'q':
		ret = parse_uint("--qd", arg, 1, 4096, &v);
		o->qd = v;
		o->io_opt = "--qd";
		break;
	case 'r': ret = parse_uint("--repeat", arg, 1, 1000, &v); o->repeat = v; break;
	case 'n':
		ret = parse_uint("--ios", arg, 1, 1UL << 40, &v);
		o->ios = v;
		o->io_opt = "--ios";
		break;
	case OPT_RUNTIME:
		o->io_opt = "--runtime";
		o->runtime = strtod(arg, &end);
		if (*end || !(o->runtime > 0 && o->runtime <= 3600))
			return lp_err(LP_EUSAGE,
				      "--runtime %s: give seconds from 0.001 to 3600",
				      arg);
		break;
	default:
		return lp_err(LP_EUSAGE, "unknown option: see longpin --help");
	}
	return ret;
}

/* The flags and the options that take a name; the rest to parse_num(). */
static int parse_one(struct opts *o, int c, const char *arg)
{
	switch (c) {
	case 'm':
		if (o->mem)
			return lp_err(LP_EUSAGE,
				      "--mem given twice (%s, then %s): give one memory type per run",
				      o->mem, arg);
		o->mem = arg;
		break;
	case 'd': o->dir = arg; break;
	case 'D': o->dev = arg; break;
	case 't': o->target = arg; o->io_opt = "--target"; break;
	case 'e': o->expect = arg; break;
	case 'c': o->csv = arg; break;
	case 'Q': o->quiet = true; break;
	case OPT_NO_IO: o->no_io = true; break;
	case OPT_MMAP_PROBE: o->mmap_probe = true; break;
	case OPT_PRINT_EXPECTED: o->print_expected = true; break;
	case OPT_NO_MEMLOCK_CHECK: o->no_memlock_check = true; break;
	case OPT_CONCURRENT: o->concurrent = true; break;
	case OPT_TARGET_OVERWRITE: o->target_overwrite = true; break;
	case OPT_OPS: o->torture_ops = arg; break;
	case OPT_READONLY_PIN: o->readonly_pin = true; break;
	case OPT_PINNER:
		if (!pinner_find(arg))
			return lp_err(LP_EUSAGE,
				      "--pinner %s: give io_uring, gup-fast, gup or rdma (longpin --help)",
				      arg);
		o->pinner = arg;
		break;
	case OPT_LIST: o->list = true; break;
	case OPT_LIFETIME:
		o->lifetime = arg;
		if (!strcmp(arg, "memlock"))
			o->no_memlock_check = true;
		break;
	case OPT_INJECT:
		if (strcmp(arg, "corrupt") && strcmp(arg, "leak") &&
		    strcmp(arg, "fill"))
			return lp_err(LP_EUSAGE,
				      "--inject %s: give corrupt, leak or fill", arg);
		o->inject = arg;
		break;
	default:
		return parse_num(o, c, arg);
	}
	return LP_OK;
}

/*
 * The I/O writes a pattern over --target: a file that already holds data
 * is the user's, not longpin's, unless --target-overwrite says otherwise.
 */
static int target_check(const struct opts *o)
{
	struct stat st;

	if (!o->target || o->target_overwrite || o->no_io ||
	    stat(o->target, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return LP_OK;
	return lp_err(LP_EUSAGE,
		      "--target %s holds %lld bytes that the I/O would overwrite: give a new or empty file, or --target-overwrite",
		      o->target, (long long)st.st_size);
}

/* --torture and its options: with nothing that would be ignored. */
static int torture_check(const struct opts *o)
{
	if (!o->torture && (o->have_seed || o->torture_ops))
		return lp_err(LP_EUSAGE,
			      "%s belongs to --torture: give --torture SECONDS too",
			      o->have_seed ? "--seed" : "--ops");
	if (!o->torture)
		return LP_OK;
	if (o->lifetime)
		return lp_err(LP_EUSAGE,
			      "--torture and --lifetime %s are two modes: give one",
			      o->lifetime);
	if (o->io_opt || o->cycles || o->mmap_probe || o->no_io)
		return lp_err(LP_EUSAGE,
			      "--torture runs its own registrations and I/O, so %s would do nothing: drop it",
			      o->io_opt ? o->io_opt : o->cycles ? "--cycles" :
			      o->mmap_probe ? "--mmap-probe" : "--no-io");
	if (o->prefaults != 1u << PF_WRITE)
		return lp_err(LP_EUSAGE,
			      "--torture writes the buffer first (prefault write): drop --prefault");
	return LP_OK;
}

/*
 * A pinner without I/O pins and unpins, nothing else: the options of
 * io_uring's I/O, cycles and modes would do nothing. A lifetime case
 * says which pinners it takes (lifetime.c).
 */
static int pinner_check(const struct opts *o)
{
	const struct pinner_ops *ops = pinner_find(o->pinner)->ops;
	const char *mode = o->torture ? "--torture" : NULL;
	const char *opt = o->io_opt ? o->io_opt : o->cycles ? "--cycles" :
			  o->inject ? "--inject" : NULL;

	if (!ops->readonly && o->readonly_pin)
		return lp_err(LP_EUSAGE,
			      "--readonly-pin belongs to --pinner gup-fast, gup or rdma (io_uring pins for writing): give --pinner too");
	if (ops->io || o->lifetime)
		return LP_OK;
	if (mode)
		return lp_err(LP_EUSAGE,
			      "%s registers io_uring buffers, not --pinner %s pins: drop one of them",
			      mode, o->pinner);
	if (opt)
		return lp_err(LP_EUSAGE,
			      "--pinner %s only pins and unpins, so %s would do nothing: drop it",
			      o->pinner, opt);
	return LP_OK;
}

/*
 * Parse the command line into @o. Returns LP_OK to run, -1 when done
 * (--help, --list, ...), else an exit status after a one-line error.
 * Callable more than once (the fuzzer does): getopt is reset first.
 */
int opts_parse(struct opts *o, int argc, char **argv)
{
	int c, ret;

	*o = (struct opts){ .size = 16 * MiB, .prefaults = 1u << PF_WRITE,
			    .bs = 4096, .qd = 8, .ios = 2048, .repeat = 3,
			    .pinner = "io_uring" };
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case OPT_LIST_TYPES: mem_list_types(); return -1;
		case OPT_LIST_CONTRACTS: contract_list(); return -1;
		case OPT_VERSION:
			printf("longpin %s (CSV schema %d)\n", LONGPIN_VERSION,
			       LONGPIN_SCHEMA);
			return -1;
		case OPT_PRINT_ACCEL: puts(cpu_accel()); return -1;
		case '?':
			return lp_err(LP_EUSAGE,
				      "unknown option or missing argument '%s': see longpin --help",
				      argv[optind - 1]);
		}
		ret = parse_one(o, c, optarg);
		if (ret != LP_OK)
			return ret;
	}
	if (optind < argc)
		return lp_err(LP_EUSAGE, "unexpected argument '%s': see longpin --help",
			      argv[optind]);
	/*
	 * --list: the memory types; with --lifetime CASE or as --torture
	 * --list, main.c lists the types the mode applies to
	 */
	if (o->list && !o->lifetime && !o->torture_list) {
		mem_list();
		return -1;
	}
	if (o->list)
		return LP_OK;
	if (!o->mem)
		return lp_err(LP_EUSAGE,
			      "no memory type: give --mem TYPE (longpin --list shows them)");
	ret = target_check(o);
	if (ret != LP_OK)
		return ret;
	if (o->mmap_probe && !o->cycles)
		return lp_err(LP_EUSAGE,
			      "--mmap-probe runs during --cycles: give --cycles N too");
	if (o->lifetime && o->io_opt)
		return lp_err(LP_EUSAGE,
			      "--lifetime %s runs no measured I/O, so %s would do nothing: drop it",
			      o->lifetime, o->io_opt);
	if (o->lifetime && strcmp(o->lifetime, "cycles") &&
	    (o->cycles || o->mmap_probe))
		return lp_err(LP_EUSAGE,
			      "--lifetime %s ignores %s (only --lifetime cycles uses it): drop it",
			      o->lifetime, o->mmap_probe ? "--mmap-probe" : "--cycles");
	if (o->concurrent && !o->torture &&
	    (!o->lifetime || strcmp(o->lifetime, "cycles")))
		return lp_err(LP_EUSAGE,
			      "--concurrent belongs to --lifetime cycles or --torture: give one of them too");
	ret = pinner_check(o);
	return ret != LP_OK ? ret : torture_check(o);
}

