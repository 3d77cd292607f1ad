/* SPDX-License-Identifier: GPL-2.0 */
/* The running kernel's values of GUP's FOLL_ flags (kflags.c). */
#ifndef LONGPIN_KFLAGS_H
#define LONGPIN_KFLAGS_H

#include <stddef.h>

int lp_kernel_foll_flag(const char *name, unsigned int *val, char *src, size_t n);
/* the two readers, for the unit test */
int lp_btf_enum_value(const void *buf, size_t len, const char *name,
		   long long *val);
int lp_header_flag_value(const char *text, const char *name,
		      unsigned long long *val);

#endif
