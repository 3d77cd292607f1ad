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

static unsigned int ring_entries(const struct opts *o)
{
	return o->qd < 16 ? 32 : 2 * o->qd;
}

static size_t pages_kb(size_t bytes)
{
	size_t pg = sysconf(_SC_PAGESIZE);

	return (bytes + pg - 1) / pg * pg / KiB;
}

/*
 * kB the kernel charges to RLIMIT_MEMLOCK for a ring like ours, besides
 * the buffer. 6.18 charges the rings and SQEs (16 kB for 128 entries),
 * 6.1 does not: a child with a limit of 0 tries to set one up, and if
 * that fails with -ENOMEM the size is the rings' (a CQE array of twice
 * the entries, the SQ index array and a header of at most 256 bytes) plus
 * the SQEs', each rounded up to pages.
 */
static size_t ring_charge_kb(const struct opts *o)
{
	unsigned int n = ring_entries(o);
	struct io_uring ring;
	struct rlimit rl;
	int status = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
			rl.rlim_cur = 0;
			setrlimit(RLIMIT_MEMLOCK, &rl);
		}
		_exit(io_uring_queue_init(n, &ring, 0) == -ENOMEM);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 1)
		return 0;
	return pages_kb(256 + 2 * n * 16 + n * 4) + pages_kb(n * 64);
}

/* Without CAP_IPC_LOCK the ring's pins are charged to RLIMIT_MEMLOCK. */
static int memlock_check(const struct opts *o)
{
	/* --inject leak holds a second pin, --torture two rings pin it */
	size_t copies = (o->inject && !strcmp(o->inject, "leak")) ||
			o->torture ? 2 : 1;
	size_t need_kb, ring_kb, fit_kb, other_kb;
	struct rlimit rl;
	char fit[48];
	long pinned;

	if (have_cap_ipc_lock() || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return LP_OK;
	pinned = vmpin_kb();
	ring_kb = ring_charge_kb(o);
	other_kb = ring_kb + (pinned > 0 ? pinned : 0);
	need_kb = o->size / KiB * copies + other_kb;
	if (rl.rlim_cur / KiB >= need_kb)
		return LP_OK;
	/* the largest --size that fits, for those who cannot raise it */
	fit_kb = rl.rlim_cur / KiB > other_kb ?
		 (rl.rlim_cur / KiB - other_kb) / copies : 0;
	if (fit_kb >= 1024)
		snprintf(fit, sizeof(fit), "--size %zuM or less", fit_kb / 1024);
	else
		snprintf(fit, sizeof(fit), "--size %zuK or less", fit_kb / 4 * 4);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max / KiB < need_kb)
		return lp_err(LP_EUSAGE,
			      "RLIMIT_MEMLOCK is %llu kB (hard limit %llu kB), registering %zu kB needs at least %zu kB (the buffer and %zu kB for the ring): give %s, or have root raise memlock in /etc/security/limits.conf",
			      (unsigned long long)rl.rlim_cur / KiB,
			      (unsigned long long)rl.rlim_max / KiB, o->size / KiB,
			      need_kb, ring_kb, fit);
	return lp_err(LP_EUSAGE,
		      "RLIMIT_MEMLOCK is %llu kB, registering %zu kB needs at least %zu kB (the buffer and %zu kB for the ring): run `ulimit -l %zu` (or unlimited) first, or give %s",
		      (unsigned long long)rl.rlim_cur / KiB, o->size / KiB,
		      need_kb, ring_kb, need_kb, fit);
}

static int ring_init(struct io_uring *ring, const struct opts *o)
{
	int ret = io_uring_queue_init(ring_entries(o), ring, 0);

	return ret ? ring_init_err(ret) : LP_OK;
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
	struct probe p[4];	/* before, registered, after I/O, after */
	double pages = m->len / 4096.0;
	uint64_t t0, t1;
	int ret = LP_OK;

	pages_take(r, m, 0);
	probe_take(&p[0]);
	t0 = now_ns();
	r->result = io_uring_register_buffers(ring, &iov, 1);
	t1 = now_ns();
	r->reg_ns = (t1 - t0) / pages;
	probe_take(&p[1]);
	pages_take(r, m, 1);
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
	/* an untouched buffer is registered untouched each cycle */
	if (o->cycles && cycles_run(ring, m, o->cycles, o->mmap_probe,
				    r->pf == PF_NONE, r->result, &r->cyc))
		ret = lp_err(LP_EUSAGE, "--cycles: out of memory or threads");
	probe_take(&p[3]);
	if (leaking)
		io_uring_queue_exit(&leak);
	fill_counters(r, p);
	return ret;
}

/* Where the prober ran: a fact about the figures, not a failure. */
static void probe_note(const struct cycles_result *c, char *note, size_t n)
{
	if (c->probe_cpu[1] < 0)
		add_note(note, n, "prober shared the CPU with the registration (one CPU allowed)");
	else
		add_note(note, n, "prober on CPU %d (registration on CPU %d)",
			 c->probe_cpu[1], c->probe_cpu[0]);
}

static int run_one(const struct mem_ops *ops, const struct opts *o,
		   const struct contract *c, enum prefault pf, bool header)
{
	struct row r = { .kernel = kernel_release(), .contract = contract_name(c),
			 .mem = ops->name, .pf = pf, .size = o->size,
			 /* timed beside a prober thread: not a plain registration */
			 .op = o->mmap_probe ? "register-mmap-probe" : NULL };
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
	if (ret == LP_OK)
		ret = efault_cause(&m, &r, c);
	if (ret != LP_OK)
		goto out_mem;
	r.have_expected = contract_lookup(c, r.mem, r.pf, r.size,
					  &r.expected, &r.nofault);
	ret = row_judge(&r, row_checks(&r, note, sizeof(note)), DEFECT_NONE,
			note);
	if (r.cyc.probed)
		probe_note(&r.cyc, note, sizeof(note));
	ret = row_write(&r, o, header, ret);
out_mem:
	mem_teardown(&m);
out_ring:
	io_uring_queue_exit(&ring);
	return ret;
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
	/* io_uring's own pins are charged to RLIMIT_MEMLOCK up front */
	if (ret == LP_OK && !o.no_memlock_check && !o.pinner)
		ret = memlock_check(&o);
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
	if (o.lifetime && o.pinner)
		return pinner_lifetime_main(ops, &o, c);
	if (o.lifetime)
		return lifetime_main(ops, &o, c);
	if (o.torture)
		return torture_main(ops, &o, c);
	if (o.pinner)
		return pinner_main(pinner_find(o.pinner), ops, &o, c);
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
