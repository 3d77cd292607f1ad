// SPDX-License-Identifier: GPL-2.0
/*
 * Every option of the command line, one table: its name, the name of its
 * argument and its help. The parser (opts.c) reads the names, the help
 * formatter (help.c) all of it; a command (cli/cmd.c) says which options
 * it takes.
 */
#include "longpin.h"

static const struct lp_opt opt_table[OPT_NR] = {
	[OPT_MEM] = { "mem", "TYPE", "the memory type (longpin types lists them)" },
	[OPT_SIZE] = { "size", "N", "buffer size, N[K|M|G] (default 16M)" },
	[OPT_PREFAULT] = { "prefault", "P",
		"what touches the buffer before the pin: none, read, write (default), a comma list, or all; a row each" },
	[OPT_DIR] = { "dir", "DIR",
		"directory for file types; else $LONGPIN_FILE_DIR (page cache), $LONGPIN_DAX_DIR (fsdax), $LONGPIN_TMPFS_DIR (tmpfs, default /dev/shm)" },
	[OPT_DEV] = { "dev", "PATH", "device-dax node for devdax types; else $LONGPIN_DEVDAX" },
	[OPT_PINNER] = { "pinner", "NAME",
		"the long-term pinner: io_uring (the default) or another of `longpin pinners`" },
	[OPT_READONLY_PIN] = { "readonly-pin", NULL,
		"a pin the device only reads (no FOLL_WRITE; RDMA: remote read access; vfio: a map without WRITE), with a pinner that has one" },
	[OPT_TARGET] = { "target", "PATH",
		"file or block device for the I/O (default: a temp file next to the memory, or in $TMPDIR or /tmp); an existing non-empty file is refused: longpin writes over it" },
	[OPT_TARGET_OVERWRITE] = { "target-overwrite", NULL,
		"let --target write over an existing file" },
	[OPT_BS] = { "bs", "N", "I/O block size (default 4K)" },
	[OPT_QD] = { "qd", "N", "I/O queue depth (default 8)" },
	[OPT_IOS] = { "ios", "N", "I/Os per timed pass (default 2048)" },
	[OPT_RUNTIME] = { "runtime", "SEC", "seconds per timed pass instead of --ios" },
	[OPT_REPEAT] = { "repeat", "N", "timed passes of each kind (default 3)" },
	[OPT_NO_IO] = { "no-io", NULL, "pin only, no I/O" },
	[OPT_CYCLES] = { "cycles", "N",
		"N more pin/unpin cycles after the measured one (times: cycle_reg_ns_*; VmPin checked after all)" },
	[OPT_MMAP_PROBE] = { "mmap-probe", NULL,
		"during --cycles a second thread times mmap+munmap of a page" },
	[OPT_CONCURRENT] = { "concurrent", NULL,
		"other pinning processes run meanwhile: the system-wide balances (nr_foll_pin, HugePages_Rsvd) are left to the caller; VmPin, per process, is still checked" },
	[OPT_SECONDS] = { "seconds", "N",
		"how long the threads race, whole seconds from 1 to 3600 (default 30)" },
	[OPT_SEED] = { "seed", "N", "repeat a run's choices (it prints its seed on stderr)" },
	[OPT_OPS] = { "ops", "LIST", "only these operations, a comma list" },
	[OPT_EXPECT] = { "expect", "NAME",
		"the contract to judge by (longpin contracts); default: the one of the running kernel" },
	[OPT_CSV] = { "csv", "FILE", "append rows to FILE (- for stdout)" },
	[OPT_QUIET] = { "quiet", NULL, "no table on stdout" },
	[OPT_NO_MEMLOCK_CHECK] = { "no-memlock-check", NULL,
		"do not refuse a size above RLIMIT_MEMLOCK up front: the kernel answers (-ENOMEM)" },
	[OPT_INJECT] = { "inject", "corrupt|leak|fill",
		"self-tests: corrupt the data check's target, keep a second pin past the unpin, or fill the file system of the buffer's file (or of the I/O target) after its free-space check, as another writer would" },
	[OPT_LIST] = { "list", NULL, "print the names, one a line, and run nothing" },
	[OPT_HELP] = { "help", NULL, "print this help" },
};

const struct lp_opt *lp_opt_info(enum opt_id id)
{
	return &opt_table[id];
}

const char *lp_opt_name(enum opt_id id)
{
	return opt_table[id].name;
}

bool lp_opt_given(const struct opts *o, enum opt_id id)
{
	return o->given & OPT(id);
}
