/* SPDX-License-Identifier: GPL-2.0 */
/* The backends, one struct mem_ops each; mem.c lists them in CSV order. */
#ifndef LONGPIN_MEM_OPS_H
#define LONGPIN_MEM_OPS_H

#include <stdio.h>
#include <sys/shm.h>

#include "longpin.h"

extern const struct mem_ops mem_anon_ops, mem_anon_thp_ops,
	mem_anon_shared_ops, mem_readonly_ops, mem_mixed_ops,
	mem_anon_hole_ops;
extern const struct mem_ops mem_sysv_shm_ops, mem_sysv_shm_huge_ops;
extern const struct mem_ops mem_memfd_ops, mem_memfd_hugetlb_ops,
	mem_secretmem_ops;
extern const struct mem_ops mem_hugetlb_ops;
extern const struct mem_ops mem_tmpfs_shared_ops, mem_tmpfs_private_ops,
	mem_file_shared_ops, mem_file_private_ops,
	mem_fsdax_shared_ops, mem_fsdax_private_ops,
	mem_anon_file_ops, mem_file_pair_ops;
extern const struct mem_ops mem_devdax_ops, mem_anon_devdax_ops;

void mem_list_help(FILE *f);

#endif
