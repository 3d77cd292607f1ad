#!/usr/bin/env bash
# scripts/costprof.c's model (scripts/cachesim.c), without QEMU: the
# plugin's source built into a program with stand-ins for QEMU's
# functions, which then drives its
# decoder, caches and TLB directly. What must hold: LOCK-prefixed
# instructions and XCHG with memory count as atomics, nothing else does;
# a working set of 48 KiB stays in L1, and one more line in every set
# (cycled, LRU) misses L1 every time but hits L2; 1 MiB and 32 MiB the
# same for L2 and the LLC; a store on one vCPU sends the other's next load to the LLC;
# the L1 DTLB holds 96 pages, the L2 DTLB 4,096; and the L1 DTLB's hash
# agrees with a plain LRU scan over a random stream (its deletions).
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/../lib.sh"
command -v gcc >/dev/null || skip "no gcc"
[[ $(uname -m) == x86_64 ]] || skip "not x86-64"
cat >"$T/drive.c" <<'EOF'
#include "costprof.c"
#include "cachesim.c"
/* stand-ins: the model never calls them here */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t a, tb_trans_cb b) { (void)a; (void)b; }
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *a, vcpu_udata_cb b, enum qemu_plugin_cb_flags c, void *d) { (void)a; (void)b; (void)c; (void)d; }
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *a, vcpu_mem_cb b, enum qemu_plugin_cb_flags c, enum qemu_plugin_mem_rw d, void *e) { (void)a; (void)b; (void)c; (void)d; (void)e; }
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *a) { (void)a; return 0; }
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *a) { (void)a; return 0; }
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *a, size_t b) { (void)a; (void)b; return NULL; }
size_t qemu_plugin_insn_data(const struct qemu_plugin_insn *a, void *b, size_t c) { (void)a; (void)b; (void)c; return 0; }
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t a) { (void)a; return 3; }
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t a) { return a & 1; }
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t a, uint64_t b) { (void)a; (void)b; return NULL; }
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *a) { (void)a; return false; }
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *a) { (void)a; return 0; }
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t a, udata_cb b, void *c) { (void)a; (void)b; (void)c; }
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t a, void (*b)(qemu_plugin_id_t, unsigned int)) { (void)a; (void)b; }
GArray *qemu_plugin_get_registers(void) { return NULL; }
int qemu_plugin_read_register(struct qemu_plugin_register *a, GByteArray *b) { (void)a; (void)b; return -1; }
GByteArray *g_byte_array_new(void) { return NULL; }
GByteArray *g_byte_array_set_size(GByteArray *a, unsigned int b) { (void)b; return a; }

static int bad;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); bad = 1; } } while (0)

/* loads of N lines from BASE cycled twice; the levels of the second pass */
static void pass2(unsigned int cpu, uint64_t base, unsigned int n, unsigned int lv[5])
{
	unsigned int i, r;

	memset(lv, 0, 5 * sizeof(*lv));
	for (r = 0; r < 2; r++)
		for (i = 0; i < n; i++) {
			int l = cache_access(cpu, base + i, false);

			if (r)
				lv[l]++;
		}
}

/* walks in the second pass over N pages of SHIFT from BASE */
static unsigned int walks2(unsigned int cpu, uint64_t base, unsigned int n)
{
	unsigned int i, r, w = 0;

	for (r = 0; r < 2; r++)
		for (i = 0; i < n; i++)
			w += tlb_access(cpu, base + ((uint64_t)i << 12)) && r;
	return w;
}

int main(void)
{
	static const struct { const char *what; uint8_t b[8]; size_t n; bool lock; } d[] = {
		{ "lock incl (%rdi)", { 0xf0, 0xff, 0x07 }, 3, true },
		{ "lock cmpxchg %rcx,(%rdi)", { 0xf0, 0x48, 0x0f, 0xb1, 0x0f }, 5, true },
		{ "%gs: lock xadd", { 0x65, 0xf0, 0x48, 0x0f, 0xc1, 0x07 }, 6, true },
		{ "lock with 0x66 before it", { 0x66, 0xf0, 0x0f, 0xb1, 0x0f }, 5, true },
		{ "xchg %rax,(%rdi)", { 0x48, 0x87, 0x07 }, 3, true },
		{ "xchg %al,(%rdi)", { 0x86, 0x07 }, 2, true },
		{ "xchg %rax,%rcx", { 0x48, 0x87, 0xc1 }, 3, false },
		{ "mov %rax,(%rdi)", { 0x48, 0x89, 0x07 }, 3, false },
		{ "pause", { 0xf3, 0x90 }, 2, false },
		{ "rep stosb", { 0xf3, 0xaa }, 2, false },
		{ "xadd without lock", { 0x48, 0x0f, 0xc1, 0x07 }, 4, false },
	};
	unsigned int i, lv[5], w;
	size_t k;

	sim_init(2, (const uint64_t[3]){ 48, 1024, 32768 });
	for (k = 0; k < sizeof(d) / sizeof(*d); k++)
		CHECK(locked(d[k].b, d[k].n) == d[k].lock, "%s: atomic %d, want %d", d[k].what, !d[k].lock, d[k].lock);

	pass2(0, 1 << 20, 768, lv);
	CHECK(lv[1] == 768, "48 KiB: %u of 768 in L1", lv[1]);
	pass2(0, 2 << 20, 13 * 64, lv);
	CHECK(lv[2] == 13 * 64, "13 ways of L1's 64 sets: %u of 832 in L2", lv[2]);
	pass2(0, 3 << 20, 16384, lv);
	CHECK(lv[2] == 16384, "1 MiB: %u of 16384 in L2", lv[2]);
	pass2(0, 4 << 20, 17 * 1024, lv);
	CHECK(lv[3] == 17 * 1024, "17 ways of L2's 1024 sets: %u of 17408 in the LLC", lv[3]);
	pass2(0, 8 << 20, 17 * 32768, lv);
	CHECK(lv[4] == 17 * 32768, "17 ways of the LLC's 32768 sets: %u of 557056 from memory", lv[4]);

	cache_access(0, 77, false);
	CHECK(cache_access(0, 77, false) == 1, "a line loaded twice: not in L1");
	cache_access(1, 77, true);
	CHECK(cache_access(0, 77, false) == 3, "a line the other vCPU stored to: not from the LLC");
	CHECK(cache_access(1, 77, false) == 1, "the storing vCPU lost its line");

	w = walks2(0, 0x10000000, 96);
	CHECK(w == 0, "96 pages: %u walks", w);
	w = walks2(0, 0x20000000, 97);
	CHECK(w == 0, "97 pages: %u walks (the L2 DTLB holds them)", w);
	w = walks2(0, 0x40000000, 8192);
	CHECK(w == 8192, "8192 pages cycled: %u walks of 8192", w);
	tlb_access(0, 0xffff888000000000ull);
	CHECK(!tlb_access(0, 0xffff888000100000ull), "the direct map: not 2 MiB entries");

	/* the hashed L1 DTLB against a plain LRU over 150 pages, random */
	{
		uint64_t ref[TLB1] = { 0 }, st[TLB1] = { 0 }, now = 0, x = 88172645463325252ull;
		unsigned int miss = 0, rmiss = 0, j, v;

		for (i = 0; i < 200000; i++) {
			uint64_t pg;
			bool hit = false;

			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			pg = x % 150;
			miss += tlb1_find(&tlb1[1], pg + 1) < 0;
			tlb_access(1, pg << 12);
			for (j = 0, v = 0; j < TLB1; j++) {
				if (ref[j] == pg + 1) { st[j] = ++now; hit = true; break; }
				if (st[j] < st[v]) v = j;
			}
			if (!hit) { rmiss++; ref[v] = pg + 1; st[v] = ++now; }
		}
		CHECK(miss == rmiss, "L1 DTLB: %u misses, a plain LRU %u", miss, rmiss);
		printf("L1 DTLB over 150 random pages: %u misses in 200000, as a plain LRU\n", miss);
	}
	return bad;
}
EOF
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$REPO/scripts" -o "$T/drive" "$T/drive.c" || fail "the driver does not build"
"$T/drive" || fail "the model"
pass "atomics decoded, L1/L2/LLC at 48 KiB, 1 MiB, 32 MiB (LRU), a store invalidates the other vCPU's copy, the DTLB at 96 and 4,096 pages"
