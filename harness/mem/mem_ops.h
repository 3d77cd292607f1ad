/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a memory backend includes. A backend defines one struct mem_ops
 * per memory type (longpin.h) and registers it where it defines it with
 * MEM_REGISTER(): the registry (mem.c) finds every registered type in
 * the linker section lp_mem_types and lists them by .order, their place
 * in `longpin types` and in the CSV. Adding a memory type is its backend
 * file and its contract rows, nothing else (docs/adding-a-memory-type.md).
 */
#ifndef LONGPIN_MEM_OPS_H
#define LONGPIN_MEM_OPS_H

#include <stdio.h>
#include <sys/shm.h>

#include "longpin.h"

#define MEM_REGISTER(ops)						\
	static const struct mem_ops *const mem_reg_##ops		\
	__attribute__((used, section("lp_mem_types"),			\
		       aligned(sizeof(void *)))) = &(ops)

#endif
