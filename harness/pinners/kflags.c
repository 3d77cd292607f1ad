// SPDX-License-Identifier: GPL-2.0
/*
 * The values of GUP's FOLL_ flags, as the running kernel defines them.
 * They are kernel internals, not ABI: 6.1 has them as #defines in
 * include/linux/mm.h (FOLL_LONGTERM 0x10000), 6.2 and later as an enum in
 * include/linux/mm_types.h (FOLL_LONGTERM 1 << 8). gup_test's
 * PIN_FAST_BENCHMARK passes the caller's flags to pin_user_pages_fast()
 * as they are, so --pinner gup-fast must know them, and asks the kernel:
 *
 *  1. its BTF, /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF, as
 *     distributions build): the enum's constants, by name;
 *  2. else its headers where the kernel's own build looks for them,
 *     /lib/modules/RELEASE/build/include/linux/{mm_types,mm}.h (vm/ puts
 *     the two files of the tree it built there in the guest).
 *
 * A kernel that says neither leaves the flag unknown, and gup-fast skips
 * with that reason.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kflags.h"
#include "longpin.h"

#define BTF_PATH	"/sys/kernel/btf/vmlinux"
#define BTF_MAGIC	0xeB9F
#define BTF_MAX		(256u << 20)	/* vmlinux's is 5-10 MB */

struct btf_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

enum {
	BTF_KIND_INT = 1, BTF_KIND_ARRAY = 3, BTF_KIND_STRUCT = 4,
	BTF_KIND_UNION = 5, BTF_KIND_ENUM = 6, BTF_KIND_FUNC_PROTO = 13,
	BTF_KIND_VAR = 14, BTF_KIND_DATASEC = 15, BTF_KIND_DECL_TAG = 17,
	BTF_KIND_ENUM64 = 19, BTF_KIND_MAX = 19,
};

/* the bytes that follow a type's 12-byte header, or -1 for an unknown kind */
static long btf_extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return 12;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		return 12L * vlen;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return 8L * vlen;
	default:
		return kind <= BTF_KIND_MAX ? 0 : -1;
	}
}

/*
 * lp_btf_enum_value() - the value of the enum constant @name in the raw BTF
 * @buf of @len bytes (what /sys/kernel/btf/vmlinux holds).
 * Returns 0 and sets *@val; -ENOENT when no enum has it; -EINVAL when
 * @buf is not BTF this code can walk.
 */
int lp_btf_enum_value(const void *buf, size_t len, const char *name,
		   long long *val)
{
	const unsigned char *b = buf, *t, *end;
	const char *strs;
	struct btf_hdr h;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) ||
	    (uint64_t)h.hdr_len + h.type_off + h.type_len > len ||
	    (uint64_t)h.hdr_len + h.str_off + h.str_len > len || !h.str_len)
		return -EINVAL;
	strs = (const char *)b + h.hdr_len + h.str_off;
	if (strs[h.str_len - 1])
		return -EINVAL;
	t = b + h.hdr_len + h.type_off;
	end = t + h.type_len;
	while (t + 12 <= end) {
		uint32_t info, vlen, kind, i, off;
		long extra;

		memcpy(&info, t + 4, 4);
		kind = (info >> 24) & 0x1f;
		vlen = info & 0xffff;
		extra = btf_extra(kind, vlen);
		if (extra < 0 || t + 12 + extra > end)
			return -EINVAL;
		for (i = 0; (kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64) &&
			    i < vlen; i++) {
			const unsigned char *e = t + 12 +
				i * (kind == BTF_KIND_ENUM ? 8 : 12);

			memcpy(&off, e, 4);
			if (off >= h.str_len || strcmp(strs + off, name))
				continue;
			if (kind == BTF_KIND_ENUM) {
				int32_t v;

				memcpy(&v, e + 4, 4);
				*val = v;
			} else {
				uint32_t lo, hi;

				memcpy(&lo, e + 4, 4);
				memcpy(&hi, e + 8, 4);
				*val = (long long)((uint64_t)hi << 32 | lo);
			}
			return 0;
		}
		t += 12 + extra;
	}
	return t == end ? -ENOENT : -EINVAL;
}

/* a C integer constant at *p (0x.., decimal, a U/L suffix) */
static int c_number(const char **p, unsigned long long *v)
{
	char *e;

	errno = 0;
	*v = strtoull(*p, &e, 0);
	if (e == *p || errno)
		return -EINVAL;
	while (*e == 'U' || *e == 'u' || *e == 'L' || *e == 'l')
		e++;
	*p = e;
	return 0;
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "N", "(N)", "N << M" or "(1U << M)" at @p, up to the line's end */
static int c_value(const char *p, unsigned long long *v)
{
	unsigned long long shift;
	bool paren;

	p = skip_space(p);
	paren = *p == '(';
	if (paren)
		p = skip_space(p + 1);
	if (c_number(&p, v))
		return -EINVAL;
	p = skip_space(p);
	if (p[0] == '<' && p[1] == '<') {
		p = skip_space(p + 2);
		if (c_number(&p, &shift) || shift > 63)
			return -EINVAL;
		*v <<= shift;
		p = skip_space(p);
	}
	if (paren && *p++ != ')')
		return -EINVAL;
	return 0;
}

/*
 * lp_header_flag_value() - the value C source @text gives @name: as
 * "#define NAME VALUE" or as an enumerator "NAME = VALUE", VALUE a
 * number or a shift of one. Returns 0 and sets *@val, or -ENOENT.
 */
int lp_header_flag_value(const char *text, const char *name, unsigned long long *val)
{
	size_t n = strlen(name);
	const char *p, *q;

	for (p = strstr(text, name); p; p = strstr(p + 1, name)) {
		if ((p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) ||
		    isalnum((unsigned char)p[n]) || p[n] == '_')
			continue;
		/* the start of its line */
		for (q = p; q > text && q[-1] != '\n'; q--)
			;
		q = skip_space(q);
		if (q[0] == '#') {
			q = skip_space(q + 1);
			if (strncmp(q, "define", 6))
				continue;
			q = skip_space(q + 6);
			if (q != p || (p[n] != ' ' && p[n] != '\t'))
				continue;
			if (!c_value(p + n, val))
				return 0;
		} else if (q == p && *skip_space(p + n) == '=') {
			if (!c_value(skip_space(p + n) + 1, val))
				return 0;
		}
	}
	return -ENOENT;
}

/* @path's contents, NUL-terminated, or NULL (errno set) */
static char *slurp(const char *path, size_t max, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL, *nb;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (!buf || n + 1 >= cap) {
			if (buf)
				cap *= 2;
			nb = cap <= max ? realloc(buf, cap) : NULL;
			if (!nb) {
				free(buf);
				close(fd);
				errno = nb ? ENOMEM : EFBIG;
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * lp_kernel_foll_flag() - the running kernel's value of GUP flag @name
 * ("FOLL_LONGTERM"). Returns 0, *@val set and @src naming where it was
 * read; or -ENOENT, @src saying where it was looked for.
 */
int lp_kernel_foll_flag(const char *name, unsigned int *val, char *src, size_t n)
{
	static const char *const hdrs[] = { "mm_types.h", "mm.h" };
	const char *rel = lp_kernel_release();
	unsigned long long v;
	char path[PATH_MAX];
	long long bv;
	size_t len, i;
	char *buf;
	int ret;

	buf = slurp(BTF_PATH, BTF_MAX, &len);
	if (buf) {
		ret = lp_btf_enum_value(buf, len, name, &bv);
		free(buf);
		if (!ret && bv > 0 && bv <= UINT32_MAX) {
			*val = bv;
			snprintf(src, n, "%s", BTF_PATH);
			return 0;
		}
	}
	for (i = 0; i < ARRAY_SIZE(hdrs); i++) {
		snprintf(path, sizeof(path),
			 "/lib/modules/%s/build/include/linux/%s", rel, hdrs[i]);
		buf = slurp(path, 16u << 20, &len);
		if (!buf)
			continue;
		ret = lp_header_flag_value(buf, name, &v);
		free(buf);
		if (!ret && v && v <= UINT32_MAX) {
			*val = v;
			snprintf(src, n, "%s", path);
			return 0;
		}
	}
	snprintf(src, n,
		 "not in %s (CONFIG_DEBUG_INFO_BTF) nor in /lib/modules/%s/build/include/linux/{mm_types,mm}.h",
		 BTF_PATH, rel);
	return -ENOENT;
}
