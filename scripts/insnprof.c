// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof: a QEMU TCG plugin (API version 4, QEMU 9.x/10.x) that counts the
 * guest instructions executed per translation block of kernel code, both
 * vCPUs apart, and writes "ADDR COUNT0 COUNT1" lines at exit (out=FILE,
 * default insnprof.txt). scripts/insn-profile.sh turns two such profiles
 * into instructions per page per kernel function. The few declarations it
 * needs of <qemu-plugin.h>, which Debian does not ship, are below.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <pthread.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct { const char *target_name; struct { int min, cur; } version;
	bool system_emulation; union { struct { int smp_vcpus, max_vcpus; } system; }; } qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*vcpu_udata_cb)(unsigned int, void *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *, vcpu_udata_cb, enum qemu_plugin_cb_flags, void *);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);

__attribute__((visibility("default"))) int qemu_plugin_version = 4;

struct blk { uint64_t addr; uint32_t n; uint64_t cnt[2]; };
static struct blk **blks; static size_t nblk, cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out = "insnprof.txt";

static void exec_cb(unsigned int vcpu, void *ud)
{
	struct blk *b = ud;
	b->cnt[vcpu & 1] += b->n;
}

static void trans_cb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t a = qemu_plugin_tb_vaddr(tb);
	struct blk *b;

	(void)id;
	if (a < 0xffff800000000000ull)
		return;
	b = calloc(1, sizeof(*b));
	b->addr = a;
	b->n = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&lock);
	if (nblk == cap) { cap = cap ? 2 * cap : 65536; blks = realloc(blks, cap * sizeof(*blks)); }
	blks[nblk++] = b;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_cb, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out, "w");
	size_t i;

	(void)id; (void)p;
	if (!f)
		return;
	for (i = 0; i < nblk; i++)
		if (blks[i]->cnt[0] || blks[i]->cnt[1])
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)blks[i]->addr,
				(unsigned long long)blks[i]->cnt[0], (unsigned long long)blks[i]->cnt[1]);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	(void)info;
	if (argc > 0 && !strncmp(argv[0], "out=", 4))
		out = argv[0] + 4;
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans_cb);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
