// SPDX-License-Identifier: GPL-2.0
/*
 * costprof: a QEMU TCG plugin (API version 4, QEMU 9.x/10.x: the
 * bookworm-backports 10.0 that longpin-vm's --icount fetches) that counts,
 * per translation block of kernel code and per phase, what the cost model
 * of scripts/cost-profile.sh weighs: instructions, locked atomics, loads
 * and stores, misses of a simulated data-cache hierarchy and data-TLB
 * misses (page-table walks). At exit it writes (out=FILE, default
 * costprof.txt) a header and "ADDR PHASE INSNS ATOMICS LOADS STORES L1MISS
 * L2MISS LLCMISS WALKS" lines.
 *
 * Phases: a TB that starts at a reg=ADDR marker (the kernel function
 * that registers, io_sqe_buffers_register) puts the task that runs it in
 * phase 1, one at an unreg=ADDR marker in phase 2; the task's next TB of
 * user code puts it back in phase 0. So a phase is its function and all
 * that its task runs until the syscall returns (interrupts included); the
 * syscall's entry up to the marker is phase 0. The phase goes with the
 * task: at a context switch (switch=ADDR, __switch_to_asm's address) the
 * vCPU's phase is kept for the task switched out (%rdi) and the one
 * switched in (%rsi) takes up its own, so a registration that sleeps and
 * wakes on the other vCPU stays whole. Which vCPU runs is read from GS
 * (which_cpu(): QEMU's own vcpu_index is not it here). Before the first
 * marker only instructions are counted: the caches and TLBs start empty
 * at the first registration (which the two boots that
 * scripts/cost-profile.sh subtracts both make), so that the boot and the
 * buffer's set-up, the bulk of a profiled boot, cost only QEMU's
 * callbacks.
 *
 * Atomics: instructions with a LOCK prefix (0xF0 among the legacy
 * prefixes) and XCHG (0x86, 0x87) with a memory operand, decoded from
 * the instruction's bytes; counted per TB, as instructions are. Like
 * -icount, a string instruction counts once per iteration (rep stosb
 * clearing a page: 4,096 instructions and 4,096 one-byte stores).
 *
 * The cache model is the core this was calibrated on, AMD Zen 5 (EPYC
 * 9005, family 1Ah model 02h), as CPUID leaf 0x8000001D reports it here
 * and AMD's Software Optimization Guide for the Zen5 Microarchitecture
 * (pub. 58455) describes it: 64-byte lines; per vCPU an L1d of 48 KiB,
 * 12-way and an L2 of 1 MiB, 16-way; one LLC of 32 MiB, 16-way, shared
 * by the vCPUs. Each level true LRU, allocated on every miss (loads and
 * stores alike), none inclusive of another, no write-backs; a store
 * invalidates the line in the other vCPUs' L1 and L2 (their next access
 * misses to the LLC). Zen's L3 is a victim cache of the L2s: filling it
 * on a miss instead differs by at most the L2s' capacity. Physical
 * addresses (the L2 and L3 are physically indexed, the L1's index bits lie
 * within the page offset, and the kernel reaches one page through several
 * virtual aliases: the direct map, vmemmap's struct pages, a user
 * mapping). Instruction fetches are not modelled. Sizes can be changed:
 * l1=KiB,l2=KiB,llc=KiB (ways stay).
 *
 * The data TLB, per vCPU: an L1 of 96 entries, fully associative (CPUID
 * 0x80000005 here), and an L2 of 4,096 entries (AMD's figure for Zen 5;
 * modelled 16-way), LRU, by virtual page; a miss in both is a walk. The
 * page size is told by the region (4-level paging, no KASLR): the direct
 * map, vmemmap and the kernel image use 2 MiB entries (1 GiB direct-map
 * pages are held as 2 MiB entries in Zen's L2 TLB), vmalloc, modules, the
 * fixmap and user memory 4 KiB. No flushes are modelled.
 *
 * Under -icount TCG runs one vCPU at a time on one thread: no locking.
 * The few declarations it needs of <qemu-plugin.h>, which Debian does not
 * ship, are below.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>

#include "cachesim.h"

typedef uint64_t qemu_plugin_id_t;
typedef struct { const char *target_name; struct { int min, cur; } version;
	bool system_emulation; union { struct { int smp_vcpus, max_vcpus; } system; }; } qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_plugin_hwaddr;
typedef uint32_t qemu_plugin_meminfo_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*vcpu_udata_cb)(unsigned int, void *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);
typedef void (*vcpu_mem_cb)(unsigned int, qemu_plugin_meminfo_t, uint64_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *, vcpu_udata_cb, enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *, vcpu_mem_cb, enum qemu_plugin_cb_flags,
				      enum qemu_plugin_mem_rw, void *);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
size_t qemu_plugin_insn_data(const struct qemu_plugin_insn *, void *, size_t);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t, uint64_t);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);
/* registers (API 3+), and the two glib arrays they come in */
typedef struct { char *data; unsigned int len; } GArray;
typedef struct { uint8_t *data; unsigned int len; } GByteArray;
struct qemu_plugin_register;
typedef struct { struct qemu_plugin_register *handle; const char *name, *feature; } qemu_plugin_reg_descriptor;
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t, void (*)(qemu_plugin_id_t, unsigned int));
GArray *qemu_plugin_get_registers(void);
int qemu_plugin_read_register(struct qemu_plugin_register *, GByteArray *);
GByteArray *g_byte_array_new(void);
GByteArray *g_byte_array_set_size(GByteArray *, unsigned int);

__attribute__((visibility("default"))) int qemu_plugin_version = 4;

#define KERNEL		SIM_KERNEL
#define NCPU		SIM_NCPU
#define NPH		3		/* phases: other, reg, unreg */
#define MAXMARK		16
#define LINE_SHIFT	6

enum { C_INSN, C_ATOM, C_LD, C_ST, C_L1M, C_L2M, C_LLCM, C_WALK, NC };

struct blk {
	uint64_t addr;
	uint32_t n, natom;
	int mark;			/* phase this TB's start begins, or 0 */
	bool kernel;
	uint64_t c[NPH][NC];
};

static struct blk **blks;
static size_t nblk, cap;
static const char *out = "costprof.txt";
static uint64_t marks[MAXMARK];
static int markph[MAXMARK], nmark;
static int phase[NCPU];
static unsigned int cur;		/* the vCPU that runs: see which_cpu() */
static uint64_t entries[NPH];

/*
 * Nothing before the first marker is simulated or counted but its
 * instructions (the boot and the buffer's set-up, which both profiled
 * boots run alike): the caches start empty at the first registration,
 * which both boots make too, and so cancels.
 */
static bool sim_on;

/* ---- callbacks ------------------------------------------------------ */
static void mem_cb(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t va, void *ud)
{
	struct blk *b = ud;
	unsigned int cpu = cur;
	struct qemu_plugin_hwaddr *h;
	bool st;
	uint64_t pa, first, last, line, *c = b->kernel ? b->c[phase[cpu]] : NULL;
	int lvl;

	(void)vcpu;
	if (!sim_on)
		return;
	h = qemu_plugin_get_hwaddr(info, va);
	st = qemu_plugin_mem_is_store(info);
	if (c)
		c[st ? C_ST : C_LD]++;
	if (!h || qemu_plugin_hwaddr_is_io(h))
		return;				/* MMIO: no cache */
	pa = qemu_plugin_hwaddr_phys_addr(h);
	first = pa >> LINE_SHIFT;
	last = (pa + (1u << qemu_plugin_mem_size_shift(info)) - 1) >> LINE_SHIFT;
	for (line = first; line <= last; line++) {
		lvl = cache_access(cpu, line, st);
		if (c) {
			c[C_L1M] += lvl > 1;
			c[C_L2M] += lvl > 2;
			c[C_LLCM] += lvl > 3;
		}
	}
	if (tlb_access(cpu, va) && c)
		c[C_WALK]++;
}

/*
 * Which vCPU runs. QEMU passes callbacks a vcpu_index, but without
 * CF_PARALLEL (one TCG thread, as -icount has) 9.x and 10.x bake the index
 * of the vCPU that translated a TB into its callbacks (gen_cpu_index()),
 * and TBs are shared: the index is often the other vCPU's. So every TB's
 * callback reads the per-CPU base the kernel keeps in GS (gs_base in
 * kernel mode; kernel_gs_base, swapped out, in user mode), and the
 * distinct bases number the vCPUs. A TB that shows no kernel base (the
 * entry code before swapgs) keeps the vCPU before it; under -icount one
 * vCPU runs at a time, so "the vCPU before it" is well defined.
 */
static struct qemu_plugin_register *reg_gs, *reg_kgs;
static uint64_t bases[NCPU];
static unsigned int nbases;

static uint64_t read_reg(struct qemu_plugin_register *r);

static void which_cpu(bool kernel)
{
	uint64_t g = read_reg(kernel ? reg_gs : reg_kgs);
	unsigned int i;

	if (g < KERNEL)
		return;
	for (i = 0; i < nbases; i++)
		if (bases[i] == g) {
			cur = i;
			return;
		}
	if (nbases < NCPU)
		bases[nbases] = g;
	cur = nbases < NCPU ? nbases++ : 0;
}

/*
 * A phase belongs to the task that entered it: when a vCPU switches tasks
 * (a TB at switch=ADDR, __switch_to_asm(prev, next)), the phase of prev
 * is kept by its task_struct pointer (%rdi) and next's (%rsi) taken up.
 * So a registration that sleeps and wakes on the other vCPU stays one.
 */
#define MARK_SWITCH 3
static struct { uint64_t task; int ph; } tasks[64];
static struct qemu_plugin_register *reg_rdi, *reg_rsi;
static GByteArray *rbuf;
static uint64_t switches_kept;

static uint64_t read_reg(struct qemu_plugin_register *r)
{
	uint64_t v = 0;

	g_byte_array_set_size(rbuf, 0);
	if (qemu_plugin_read_register(r, rbuf) == 8)
		memcpy(&v, rbuf->data, 8);
	return v;
}

static void switch_cb(unsigned int vcpu, void *ud)
{
	unsigned int cpu = cur, i, e = 64;
	uint64_t prev, next;

	(void)ud; (void)vcpu;
	if (!reg_rdi || !reg_rsi)
		return;
	prev = read_reg(reg_rdi);
	next = read_reg(reg_rsi);
	if (phase[cpu]) {
		for (i = 0; i < 64; i++)
			if (!tasks[i].task || tasks[i].task == prev) {
				e = i;
				break;
			}
		if (e < 64) {
			tasks[e].task = prev;
			tasks[e].ph = phase[cpu];
			switches_kept++;
		}
	}
	phase[cpu] = 0;
	for (i = 0; i < 64; i++)
		if (tasks[i].task == next) {
			phase[cpu] = tasks[i].ph;
			tasks[i].task = 0;
		}
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	GArray *r;
	unsigned int i;

	(void)id; (void)vcpu;
	if (reg_rdi)
		return;
	r = qemu_plugin_get_registers();
	for (i = 0; r && i < r->len; i++) {
		qemu_plugin_reg_descriptor *d = &((qemu_plugin_reg_descriptor *)r->data)[i];

		if (!strcmp(d->name, "rdi"))
			reg_rdi = d->handle;
		else if (!strcmp(d->name, "rsi"))
			reg_rsi = d->handle;
		else if (!strcmp(d->name, "gs_base"))
			reg_gs = d->handle;
		else if (!strcmp(d->name, "k_gs_base"))
			reg_kgs = d->handle;
	}
	rbuf = g_byte_array_new();
}

static void exec_cb(unsigned int vcpu, void *ud)
{
	struct blk *b = ud;
	unsigned int cpu;
	uint64_t *c;

	(void)vcpu;
	if (sim_on || b->mark)
		which_cpu(b->kernel);
	cpu = cur;
	if (!b->kernel) {
		phase[cpu] = 0;
		return;
	}
	if (b->mark && b->mark != MARK_SWITCH) {
		sim_on = true;
		phase[cpu] = b->mark;
		entries[b->mark]++;
	}
	c = b->c[phase[cpu]];
	c[C_INSN] += b->n;
	c[C_ATOM] += b->natom;
}

/* a LOCK prefix among the legacy prefixes, or XCHG with a memory operand */
static bool locked(const uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i < n; i++) {
		switch (p[i]) {
		case 0xf0:
			return true;
		case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e:
		case 0x26: case 0x64: case 0x65: case 0x66: case 0x67:
			continue;
		}
		break;
	}
	if (i < n && (p[i] & 0xf0) == 0x40)	/* REX */
		i++;
	return i + 1 < n && (p[i] == 0x86 || p[i] == 0x87) && (p[i + 1] >> 6) != 3;
}

static void trans_cb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	static struct blk user;		/* every TB of user code: no counts */
	uint64_t a = qemu_plugin_tb_vaddr(tb);
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct blk *b = a >= KERNEL ? calloc(1, sizeof(*b)) : &user;
	uint8_t buf[16];
	int k;

	(void)id;
	if (b == &user) {
		for (i = 0; i < n; i++)
			qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), mem_cb,
							 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, b);
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_cb, QEMU_PLUGIN_CB_R_REGS, b);
		return;
	}
	if (!b) {
		fprintf(stderr, "costprof: out of memory\n");
		exit(1);
	}
	b->addr = a;
	b->n = n;
	b->kernel = true;
	for (k = 0; k < nmark; k++)
		if (marks[k] == a)
			b->mark = markph[k];
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);

		if (locked(buf, qemu_plugin_insn_data(in, buf, sizeof(buf))))
			b->natom++;
		qemu_plugin_register_vcpu_mem_cb(in, mem_cb, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, b);
	}
	if (nblk == cap) {
		cap = cap ? 2 * cap : 65536;
		blks = realloc(blks, cap * sizeof(*blks));
		if (!blks) {
			fprintf(stderr, "costprof: out of memory\n");
			exit(1);
		}
	}
	blks[nblk++] = b;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_cb, QEMU_PLUGIN_CB_R_REGS, b);
	if (b->mark == MARK_SWITCH)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, switch_cb, QEMU_PLUGIN_CB_R_REGS, b);
}

static uint64_t kib[3] = { 48, 1024, 32768 };

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out, "w");
	size_t i;
	int ph, k;

	(void)id; (void)p;
	if (!f)
		return;
	fprintf(f, "# costprof: line 64, L1d %lluK 12-way and L2 %lluK 16-way per vCPU, LLC %lluK 16-way shared; "
		"DTLB %d + 4096 16-way\n", (unsigned long long)kib[0], (unsigned long long)kib[1],
		(unsigned long long)kib[2], SIM_TLB1);
	fprintf(f, "# entries %llu %llu %llu\n", (unsigned long long)entries[0],
		(unsigned long long)entries[1], (unsigned long long)entries[2]);
	fprintf(f, "# switches %s, phases carried across one %llu times; vCPUs told by GS base: %u%s\n",
		reg_rdi && reg_rsi ? "followed" : "not followed (no rdi/rsi)",
		(unsigned long long)switches_kept, nbases, reg_gs && reg_kgs ? "" : " (no gs_base register)");
	for (i = 0; i < nblk; i++)
		for (ph = 0; ph < NPH; ph++) {
			const uint64_t *c = blks[i]->c[ph];

			if (!c[C_INSN] && !c[C_LD] && !c[C_ST])
				continue;
			fprintf(f, "%llx %d", (unsigned long long)blks[i]->addr, ph);
			for (k = 0; k < NC; k++)
				fprintf(f, " %llu", (unsigned long long)c[k]);
			fputc('\n', f);
		}
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	unsigned int cpus = 2;
	int i;

	if (info->system_emulation && info->system.max_vcpus > 0)
		cpus = info->system.max_vcpus;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "out=", 4)) {
			out = a + 4;
		} else if ((!strncmp(a, "reg=", 4) || !strncmp(a, "unreg=", 6) || !strncmp(a, "switch=", 7)) &&
			   nmark < MAXMARK) {
			markph[nmark] = a[0] == 'r' ? 1 : a[0] == 'u' ? 2 : MARK_SWITCH;
			marks[nmark++] = strtoull(strchr(a, '=') + 1, NULL, 16);
		} else if (!strncmp(a, "l1=", 3)) {
			kib[0] = strtoull(a + 3, NULL, 10);
		} else if (!strncmp(a, "l2=", 3)) {
			kib[1] = strtoull(a + 3, NULL, 10);
		} else if (!strncmp(a, "llc=", 4)) {
			kib[2] = strtoull(a + 4, NULL, 10);
		} else {
			fprintf(stderr, "costprof: unknown argument '%s' (out=FILE reg=HEX unreg=HEX switch=HEX l1= l2= llc=KiB)\n", a);
			return -1;
		}
	}
	sim_init(cpus, kib);
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans_cb);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
