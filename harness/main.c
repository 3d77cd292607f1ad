// SPDX-License-Identifier: GPL-2.0
/*
 * longpin: register an io_uring fixed buffer of one memory type, compare
 * the kernel's answer with the expected contract, measure registration
 * and fixed-buffer I/O, write CSV. See README.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <liburing.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include "longpin.h"
#include "mem_ops.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: longpin --mem TYPE [--size N] [--prefault none|read|write|all]\n"
"               [--dir DIR] [--dev /dev/daxX.Y] [--target FILE|BLOCKDEV]\n"
"               [--bs N] [--qd N] [--ios N | --runtime SEC] [--repeat N]\n"
"               [--cycles N [--mmap-probe]] [--expect CONTRACT] [--csv FILE]\n"
"               [--no-io] [--quiet] [--no-memlock-check]\n"
"       longpin --lifetime CASE --mem TYPE [--size N] [--prefault P]\n"
"               [--cycles N] [--csv FILE]\n"
"       longpin --print-expected --mem TYPE [--size N] [--prefault P]\n"
"               [--expect CONTRACT]\n"
"       longpin --list | --list-contracts | --help | --version\n"
"\n"
"Registers one io_uring fixed buffer of memory TYPE (IORING_REGISTER_BUFFERS,\n"
"a long-term FOLL_WRITE pin), checks the kernel's answer against the\n"
"contract of the running kernel, measures registration and fixed-buffer\n"
"I/O, and appends a CSV row per prefault.\n"
"\n"
"  --size N        buffer size, N[K|M|G] (default 16M)\n"
"  --prefault P    none, read, write (default), a comma list, or all\n"
"  --dir DIR       directory for file types (tmpfs default /dev/shm)\n"
"  --dev PATH      device-dax node for devdax\n"
"  --target PATH   file or block device for I/O (default: a temp file\n"
"                  next to the memory, or in $TMPDIR or /tmp)\n"
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
"  --quiet         no table on stdout\n"
"  --lifetime CASE run CASE instead of the measurement: munmap, fork,\n"
"                  truncate, punch, mremap, unreg-inflight, close-ring,\n"
"                  update, cycles (10000 or --cycles N), memlock, limits\n"
"  --no-memlock-check  do not refuse a size above RLIMIT_MEMLOCK up front:\n"
"                  the kernel answers (-ENOMEM); --lifetime memlock implies it\n"
"  --print-expected  print the contract's answer for TYPE, one line per\n"
"                  prefault: CONTRACT TYPE PREFAULT SIZE EXPECTED NOFAULT\n"
"                  (tab separated; '-' when unknown), and set nothing up\n"
"  --inject corrupt|leak  self-tests: corrupt the data check's target,\n"
"                  or keep a second pin past unregistration\n"
"\n"
"Memory types:\n");
	mem_list_help(f);
	fprintf(f,
"\nExit status: 0 all verdicts pass, 1 a verdict failed, data mismatch or\n"
"pin leak, 2 usage or environment error, 77 TYPE cannot be set up here.\n");
}

enum { OPT_LIST = 256, OPT_LIST_CONTRACTS, OPT_NO_IO, OPT_INJECT,
       OPT_VERSION, OPT_RUNTIME, OPT_CYCLES, OPT_MMAP_PROBE,
       OPT_PRINT_EXPECTED, OPT_LIFETIME, OPT_NO_MEMLOCK_CHECK };

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
	{ "list-contracts", no_argument, NULL, OPT_LIST_CONTRACTS },
	{ "print-expected", no_argument, NULL, OPT_PRINT_EXPECTED },
	{ "lifetime", required_argument, NULL, OPT_LIFETIME },
	{ "no-memlock-check", no_argument, NULL, OPT_NO_MEMLOCK_CHECK },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
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

static int parse_one(struct opts *o, int c, const char *arg)
{
	unsigned long v = 0;
	char *end;
	int ret = LP_OK;

	switch (c) {
	case 'm': o->mem = arg; break;
	case 'd': o->dir = arg; break;
	case 'D': o->dev = arg; break;
	case 't': o->target = arg; break;
	case 'e': o->expect = arg; break;
	case 'c': o->csv = arg; break;
	case 'Q': o->quiet = true; break;
	case OPT_NO_IO: o->no_io = true; break;
	case OPT_MMAP_PROBE: o->mmap_probe = true; break;
	case OPT_PRINT_EXPECTED: o->print_expected = true; break;
	case OPT_NO_MEMLOCK_CHECK: o->no_memlock_check = true; break;
	case OPT_LIFETIME:
		o->lifetime = arg;
		if (!strcmp(arg, "memlock"))
			o->no_memlock_check = true;
		break;
	case OPT_CYCLES:
		ret = parse_uint("--cycles", arg, 1, 10000000, &v);
		o->cycles = v;
		break;
	case 's':
		if (parse_size(arg, &o->size))
			return lp_err(LP_EUSAGE,
				      "--size %s: give bytes or N with K, M or G (e.g. 64M)",
				      arg);
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
	case 'q': ret = parse_uint("--qd", arg, 1, 4096, &v); o->qd = v; break;
	case 'r': ret = parse_uint("--repeat", arg, 1, 1000, &v); o->repeat = v; break;
	case 'n': ret = parse_uint("--ios", arg, 1, 1UL << 40, &v); o->ios = v; break;
	case OPT_RUNTIME:
		o->runtime = strtod(arg, &end);
		if (*end || !(o->runtime > 0 && o->runtime <= 3600))
			return lp_err(LP_EUSAGE,
				      "--runtime %s: give seconds from 0.001 to 3600",
				      arg);
		break;
	case OPT_INJECT:
		if (strcmp(arg, "corrupt") && strcmp(arg, "leak"))
			return lp_err(LP_EUSAGE,
				      "--inject %s: give corrupt or leak", arg);
		o->inject = arg;
		break;
	default:
		return lp_err(LP_EUSAGE, "unknown option: see longpin --help");
	}
	return ret;
}

/* Returns LP_OK to run, -1 when done (--help/--list), else an exit code. */
static int parse_args(struct opts *o, int argc, char **argv)
{
	int c, ret;

	*o = (struct opts){ .size = 16 * MiB, .prefaults = 1u << PF_WRITE,
			    .bs = 4096, .qd = 8, .ios = 2048, .repeat = 3 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case OPT_LIST: mem_list(); return -1;
		case OPT_LIST_CONTRACTS: contract_list(); return -1;
		case OPT_VERSION:
			printf("longpin %s (CSV schema %d)\n", LONGPIN_VERSION,
			       LONGPIN_SCHEMA);
			return -1;
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
	if (!o->mem)
		return lp_err(LP_EUSAGE,
			      "no memory type: give --mem TYPE (longpin --list shows them)");
	if (o->mmap_probe && !o->cycles)
		return lp_err(LP_EUSAGE,
			      "--mmap-probe runs during --cycles: give --cycles N too");
	return LP_OK;
}

/* Without CAP_IPC_LOCK the ring's pins are charged to RLIMIT_MEMLOCK. */
static int memlock_check(const struct opts *o)
{
	size_t need_kb = o->size / KiB * (o->inject ? 2 : 1);
	struct rlimit rl;

	if (have_cap_ipc_lock() || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur / KiB >= need_kb)
		return LP_OK;
	return lp_err(LP_EUSAGE,
		      "RLIMIT_MEMLOCK is %llu kB, registering %zu kB needs at least %zu kB: run `ulimit -l %zu` (or unlimited) first, or raise memlock in /etc/security/limits.conf",
		      (unsigned long long)rl.rlim_cur / KiB, o->size / KiB,
		      need_kb, need_kb);
}

static int ring_init(struct io_uring *ring, const struct opts *o)
{
	unsigned int entries = o->qd < 16 ? 32 : 2 * o->qd;
	int ret = io_uring_queue_init(entries, ring, 0);
	FILE *f;
	int dis = -1;

	if (!ret)
		return LP_OK;
	if (ret == -ENOSYS)
		return lp_err(LP_SKIP,
			      "this kernel has no io_uring (CONFIG_IO_URING=n): use a kernel with it");
	f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
	if (f) {
		if (fscanf(f, "%d", &dis) != 1)
			dis = -1;
		fclose(f);
	}
	if (ret == -EPERM && dis > 0)
		return lp_err(LP_EUSAGE,
			      "io_uring is disabled (kernel.io_uring_disabled=%d): run `sysctl -w kernel.io_uring_disabled=0` as root",
			      dis);
	return lp_err(LP_EUSAGE, "io_uring_queue_init: %s", strerror(-ret));
}

struct probe {
	long vmpin, acq, rel;
	bool have_kc;
	long kc[LP_NR_KCOUNTERS];
};

static void probe_take(struct probe *p)
{
	p->vmpin = vmpin_kb();
	if (vmstat_pins(&p->acq, &p->rel))
		p->acq = p->rel = -1;
	p->have_kc = kcounters_present() && !kcounters_read(p->kc);
}

static void fill_counters(struct row *r, const struct probe *p)
{
	int i;

	r->vmpin[0] = p[0].vmpin;
	r->vmpin[1] = p[1].vmpin;
	r->vmpin[2] = p[3].vmpin;
	/* around the (un)registration only: O_DIRECT reads pin pages too */
	r->pin_acq = p[0].acq < 0 ? -1 : p[1].acq - p[0].acq;
	r->pin_rel = p[0].rel < 0 ? -1 : p[3].rel - p[2].rel;
	r->have_kc = p[0].have_kc && p[1].have_kc;
	for (i = 0; r->have_kc && i < LP_NR_KCOUNTERS; i++)
		r->kc[i] = p[1].kc[i] - p[0].kc[i];
}

/*
 * Register, measure, do I/O if registered, unregister. --inject leak
 * keeps a second ring's pin until after VmPin was read.
 */
static int register_and_measure(struct io_uring *ring, struct mem *m,
				const struct opts *o, struct row *r)
{
	struct iovec iov = { .iov_base = m->addr, .iov_len = m->len };
	struct io_uring leak;
	bool leaking = false;
	struct smaps_sum sm;
	struct probe p[4];	/* before, registered, after I/O, after */
	double pages = m->len / 4096.0;
	uint64_t t0, t1;
	int ret = LP_OK;

	smaps_range(m->addr, m->len, &sm);
	r->resident[0] = resident_pages(m->addr, m->len);
	r->dirty_kb[0] = sm.dirty_kb;
	probe_take(&p[0]);
	t0 = now_ns();
	r->result = io_uring_register_buffers(ring, &iov, 1);
	t1 = now_ns();
	r->reg_ns = (t1 - t0) / pages;
	probe_take(&p[1]);
	smaps_range(m->addr, m->len, &sm);
	r->resident[1] = resident_pages(m->addr, m->len);
	r->dirty_kb[1] = sm.dirty_kb;
	r->thp_kb = sm.anon_huge_kb;
	if (!r->result) {
		if (o->inject && !strcmp(o->inject, "leak") &&
		    !io_uring_queue_init(4, &leak, 0))
			leaking = !io_uring_register_buffers(&leak, &iov, 1);
		if (!o->no_io && !(m->ops->flags & MEM_RDONLY))
			ret = io_run(ring, m, o, &r->io);
		probe_take(&p[2]);
		t0 = now_ns();
		io_uring_unregister_buffers(ring);
		r->unreg_ns = (now_ns() - t0) / pages;
	} else {
		p[2] = p[1];
	}
	if (o->cycles && cycles_run(ring, m, o->cycles, o->mmap_probe,
				    r->result, &r->cyc))
		ret = lp_err(LP_EUSAGE, "--cycles: out of memory or threads");
	probe_take(&p[3]);
	if (leaking)
		io_uring_queue_exit(&leak);
	fill_counters(r, p);
	return ret;
}

static bool pages_touched(const struct row *r)
{
	return r->resident[1] != r->resident[0] ||
	       r->dirty_kb[1] != r->dirty_kb[0];
}

static const char *judge(struct row *r, const struct contract *c,
			 char *note, size_t n)
{
	r->have_expected = contract_lookup(c, r->mem, r->pf, r->size,
					   &r->expected, &r->nofault);
	if (!r->have_expected)
		return "unchecked";
	if (r->result != r->expected)
		return "fail";
	if (r->nofault && pages_touched(r)) {
		snprintf(note, n,
			 "the attempt faulted pages: resident %ld -> %ld, dirty %ld -> %ld kB",
			 r->resident[0], r->resident[1], r->dirty_kb[0],
			 r->dirty_kb[1]);
		return "fail";
	}
	return "pass";
}

/* Append "; MESSAGE" to @note; returns LP_FAIL. */
static int add_note(char *note, size_t n, const char *fmt, ...)
{
	size_t len = strlen(note);
	va_list ap;

	if (len && len + 2 < n) {
		strcpy(note + len, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(note + len, n - len, fmt, ap);
	va_end(ap);
	return LP_FAIL;
}

static int run_one(const struct mem_ops *ops, const struct opts *o,
		   const struct contract *c, enum prefault pf, bool header)
{
	struct row r = { .kernel = kernel_release(), .contract = contract_name(c),
			 .mem = ops->name, .pf = pf, .size = o->size };
	struct io_uring ring;
	struct mem m;
	int ret;
	char note[256] = "";

	ret = ring_init(&ring, o);
	if (ret != LP_OK)
		return ret;
	ret = mem_setup(&m, ops, o);
	if (ret != LP_OK)
		goto out_ring;
	ret = (ops->populate ? ops->populate : mem_populate)(&m, pf);
	if (ret)
		goto out_mem;
	r.fs_type = m.fs_type;
	r.dax = m.dax;
	ret = register_and_measure(&ring, &m, o, &r);
	if (ret != LP_OK)
		goto out_mem;
	r.verdict = judge(&r, c, note, sizeof(note));
	ret = !strcmp(r.verdict, "fail") ? LP_FAIL : LP_OK;
	if (r.vmpin[0] >= 0 && r.vmpin[2] != r.vmpin[0])
		ret = add_note(note, sizeof(note), "pin leak: VmPin %ld kB -> %ld kB",
			       r.vmpin[0], r.vmpin[2]);
	if (r.cyc.failed_at)
		ret = add_note(note, sizeof(note), "cycle %u answered %d, not %d",
			       r.cyc.failed_at, r.cyc.failed_result, r.result);
	if (!strcmp(r.io.check, "mismatch") || !strcmp(r.io.check, "error"))
		ret = add_note(note, sizeof(note), "data check: %s", r.io.check);
	r.note = note;
	if (!o->quiet)
		table_print(&r, header);
	if (o->csv && csv_append(o->csv, &r, o->repeat) != LP_OK)
		ret = LP_EUSAGE;
out_mem:
	mem_teardown(&m);
out_ring:
	io_uring_queue_exit(&ring);
	return ret;
}

/* Fail before the run, not after it, when the CSV cannot be written. */
static int csv_check(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return LP_OK;
	f = fopen(path, "a");
	if (!f)
		return lp_err(LP_EUSAGE, "--csv %s: %s: give a writable file",
			      path, strerror(errno));
	fclose(f);
	return LP_OK;
}

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

	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o->prefaults & (1u << pf)))
			continue;
		printf("%s\t%s\t%s\t%zu\t", contract_name(c), o->mem,
		       prefault_name(pf), o->size);
		if (!contract_lookup(c, o->mem, pf, o->size, &err, &nofault))
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
	struct opts o;
	int ret, worst = LP_OK, pf;
	bool header = true;

	ret = parse_args(&o, argc, argv);
	if (ret)
		return ret < 0 ? LP_OK : ret;
	ops = mem_find(o.mem);
	if (!ops)
		return lp_err(LP_EUSAGE,
			      "unknown memory type '%s': longpin --list shows the %s",
			      o.mem, "known ones");
	if (o.print_expected) {
		o.quiet = true;
		ret = resolve_contract(&o, &c);
		return ret == LP_OK ? print_expected(&o, c) : ret;
	}
	ret = mem_check_size(ops, &o);
	if (ret == LP_OK && !o.no_memlock_check)
		ret = memlock_check(&o);
	if (ret == LP_OK)
		ret = csv_check(o.csv);
	if (ret == LP_OK)
		ret = resolve_contract(&o, &c);
	if (ret != LP_OK)
		return ret;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (o.lifetime)
		return lifetime_main(ops, &o, c);
	for (pf = 0; pf < PF_NR; pf++) {
		if (!(o.prefaults & (1u << pf)))
			continue;
		ret = run_one(ops, &o, c, pf, header);
		header = false;
		if (ret == LP_EUSAGE || ret == LP_SKIP)
			return ret;
		if (ret > worst)
			worst = ret;
	}
	return worst;
}
