// SPDX-License-Identifier: GPL-2.0
/*
 * kflags: how --pinner gup-fast learns FOLL_LONGTERM from the kernel
 * (harness/pinners/kflags.c). The BTF reader on a BTF made here (an enum
 * and an enum64, a struct before them to walk past; bad magic, a
 * truncated type section, a name that is absent) and on this machine's
 * /sys/kernel/btf/vmlinux where it has one; the header reader on 6.1's
 * #define and 6.2+'s enum forms, and on a use of the name that is not
 * its definition; the headers of the trees in longpin's cache, where
 * they are (6.1: 0x10000; 6.12 and 7.2: 1 << 8). Exit 0, or 1 naming
 * the first case that fails.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kflags.h"

static int failed;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "FAIL: " __VA_ARGS__);		\
			fputc('\n', stderr);				\
			failed = 1;					\
		}							\
	} while (0)

/* a BTF blob: a struct with one member, an enum of two, an enum64 of one */
struct blob {
	unsigned char b[512];
	size_t len;
};

static void put32(struct blob *x, uint32_t v)
{
	memcpy(x->b + x->len, &v, 4);
	x->len += 4;
}

static size_t make_btf(struct blob *x)
{
	static const char strs[] = "\0s\0m\0e\0FOLL_WRITE\0FOLL_LONGTERM\0e64\0BIG";
	size_t hdr = 24, t0, tlen;
	uint16_t magic = 0xeB9F;

	memset(x, 0, sizeof(*x));
	memcpy(x->b, &magic, 2);
	x->b[2] = 1;
	x->len = hdr;
	t0 = x->len;
	/* struct s { int m; }: name, info (kind 4, vlen 1), size; member */
	put32(x, 1); put32(x, 4u << 24 | 1); put32(x, 4);
	put32(x, 3); put32(x, 0); put32(x, 0);
	/* enum e { FOLL_WRITE = 1, FOLL_LONGTERM = 256 } */
	put32(x, 5); put32(x, 6u << 24 | 2); put32(x, 4);
	put32(x, 7); put32(x, 1);
	put32(x, 18); put32(x, 256);
	/* enum64 e64 { BIG = 1 << 40 } */
	put32(x, 32); put32(x, 19u << 24 | 1); put32(x, 8);
	put32(x, 36); put32(x, 0); put32(x, 1u << 8);
	tlen = x->len - t0;
	memcpy(x->b + x->len, strs, sizeof(strs));
	x->len += sizeof(strs);
	/* hdr_len, type_off, type_len, str_off, str_len */
	{
		uint32_t h[5] = { hdr, 0, tlen, tlen, sizeof(strs) };

		memcpy(x->b + 4, h, sizeof(h));
	}
	return tlen;
}

static void btf_cases(void)
{
	struct blob x;
	long long v = 0;
	size_t tlen;
	uint32_t n;

	tlen = make_btf(&x);
	CHECK(!lp_btf_enum_value(x.b, x.len, "FOLL_LONGTERM", &v) && v == 256,
	      "BTF: FOLL_LONGTERM read as %lld, want 256", v);
	CHECK(!lp_btf_enum_value(x.b, x.len, "FOLL_WRITE", &v) && v == 1,
	      "BTF: FOLL_WRITE read as %lld, want 1", v);
	CHECK(!lp_btf_enum_value(x.b, x.len, "BIG", &v) && v == 1LL << 40,
	      "BTF: an enum64's BIG read as %lld, want 1 << 40", v);
	CHECK(lp_btf_enum_value(x.b, x.len, "FOLL_PIN", &v) == -ENOENT,
	      "BTF: a name no enum has is not -ENOENT");
	CHECK(lp_btf_enum_value(x.b, x.len, "m", &v) == -ENOENT,
	      "BTF: a struct member's name read as an enum constant");
	x.b[0] ^= 0xff;
	CHECK(lp_btf_enum_value(x.b, x.len, "FOLL_WRITE", &v) == -EINVAL,
	      "BTF: bad magic is not -EINVAL");
	make_btf(&x);
	/* the type section cut inside the enum: its members run past it */
	n = tlen - 20;
	memcpy(x.b + 12, &n, 4);
	CHECK(lp_btf_enum_value(x.b, x.len, "BIG", &v) == -EINVAL,
	      "BTF: a truncated type section is not -EINVAL");
	CHECK(lp_btf_enum_value(x.b, 10, "FOLL_WRITE", &v) == -EINVAL,
	      "BTF: 10 bytes are not -EINVAL");
}

static void header_case(const char *text, const char *name,
			unsigned long long want, int want_ret)
{
	unsigned long long v = 0;
	int ret = lp_header_flag_value(text, name, &v);

	CHECK(ret == want_ret && (ret || v == want),
	      "header \"%s\": %s answered %d, %#llx; want %d, %#llx", text,
	      name, ret, v, want_ret, want);
}

static void header_cases(void)
{
	header_case("#define FOLL_LONGTERM\t0x10000\t/* mapping lifetime */\n",
		    "FOLL_LONGTERM", 0x10000, 0);
	header_case("enum {\n\tFOLL_WRITE = 1 << 0,\n\tFOLL_LONGTERM = 1 << 8,\n};\n",
		    "FOLL_LONGTERM", 0x100, 0);
	header_case("#  define FOLL_LONGTERM (1U << 3)\n", "FOLL_LONGTERM", 8, 0);
	header_case("\tgup_flags |= FOLL_LONGTERM;\n", "FOLL_LONGTERM", 0, -ENOENT);
	header_case("#define FOLL_LONGTERM_X 5\n", "FOLL_LONGTERM", 0, -ENOENT);
	header_case("#define XFOLL_LONGTERM 5\n", "FOLL_LONGTERM", 0, -ENOENT);
	header_case(" * FOLL_LONGTERM = 1 << 8 in a comment\n", "FOLL_LONGTERM", 0,
		    -ENOENT);
	/* a use before the definition does not hide it */
	header_case("if (f & FOLL_LONGTERM)\n#define FOLL_LONGTERM 0x10000\n",
		    "FOLL_LONGTERM", 0x10000, 0);
}

/* @path's FOLL_LONGTERM is @want, where the file is here */
static void tree_case(const char *path, unsigned long long want, int *seen)
{
	unsigned long long v = 0;
	char *buf;
	FILE *f;
	long n;

	f = fopen(path, "r");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	if (buf && fread(buf, 1, n, f) == (size_t)n) {
		CHECK(!lp_header_flag_value(buf, "FOLL_LONGTERM", &v) && v == want,
		      "%s: FOLL_LONGTERM %#llx, want %#llx", path, v, want);
		printf("ok: %s: FOLL_LONGTERM %#llx\n", path, v);
		(*seen)++;
	}
	free(buf);
	fclose(f);
}

int main(void)
{
	const char *home = getenv("HOME"), *cache = getenv("LONGPIN_CACHE");
	char base[4096], path[4200];
	unsigned int val;
	char src[4200];
	int seen = 0;

	btf_cases();
	header_cases();
	snprintf(base, sizeof(base), "%s", cache && *cache ? cache : "");
	if (!*base && home)
		snprintf(base, sizeof(base), "%s/.cache/longpin", home);
	snprintf(path, sizeof(path), "%s/trees/stock/src/include/linux/mm.h", base);
	tree_case(path, 0x10000, &seen);
	snprintf(path, sizeof(path), "%s/trees/stock-6.12/src/include/linux/mm_types.h", base);
	tree_case(path, 0x100, &seen);
	snprintf(path, sizeof(path), "%s/trees/stock-7.2/src/include/linux/mm_types.h", base);
	tree_case(path, 0x100, &seen);
	if (!lp_kernel_foll_flag("FOLL_LONGTERM", &val, src, sizeof(src))) {
		CHECK(val && !(val & (val - 1)),
		      "this kernel's FOLL_LONGTERM %#x is not one bit", val);
		printf("ok: this kernel's FOLL_LONGTERM %#x, from %s\n", val, src);
	} else {
		printf("# this kernel does not say: %s\n", src);
	}
	if (failed)
		return 1;
	printf("kflags: BTF and header readers right; %d tree header(s) read\n", seen);
	return 0;
}
