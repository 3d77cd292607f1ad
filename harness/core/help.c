// SPDX-License-Identifier: GPL-2.0
/*
 * The help and the manual page, printed from the tables: the options'
 * (opt_table.c) and a command's (struct lp_cmd), handed in by who prints
 * them. Text is wrapped at 79 columns for the terminal, or escaped for
 * roff. Nothing here decides what a command says.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "longpin.h"

/* @n bytes of @s, LP_NBSP (a space no line breaks at) as a space */
static void put_n(FILE *f, const char *s, int n)
{
	for (; n-- > 0; s++)
		fputc(*s == LP_NBSP ? ' ' : *s, f);
}

void lp_text_wrap(FILE *f, const char *text, int indent, int col)
{
	const char *p = text, *sp;
	int n;

	while (*p) {
		n = strlen(p);
		if (col + n > 79) {
			for (sp = p + 79 - col; sp > p && *sp != ' '; sp--)
				;
			n = sp > p ? sp - p : n;
		}
		put_n(f, p, n);
		fputc('\n', f);
		p += n;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(f, "%*s", indent, "");
		col = indent;
	}
}

/* The options of a command, a paragraph each, for the terminal. */
void lp_opts_help(FILE *f, const struct lp_cmd_opt *opts)
{
	const struct lp_opt *op;
	char left[64];
	int n;

	for (; opts->id != OPT_NR; opts++) {
		op = lp_opt_info(opts->id);
		n = snprintf(left, sizeof(left), "  --%s%s%s", op->name,
			     op->arg ? " " : "", op->arg ? op->arg : "");
		if (n > 19)
			fprintf(f, "%s\n%19s", left, "");
		else
			fprintf(f, "%-19s", left);
		lp_text_wrap(f, opts->help ? opts->help : op->help, 19, 19);
	}
}

/* @text for roff, inline: backslashes and hyphens escaped. */
void lp_man_esc(FILE *f, const char *text)
{
	const char *p;

	for (p = text; *p; p++) {
		if (*p == '\\')
			fputs("\\e", f);
		else if (*p == LP_NBSP)
			fputs("\\ ", f);
		else if (*p == '-')
			fputs("\\-", f);
		else
			fputc(*p, f);
	}
}

/* @text as a line of roff text: no line starts a request. */
void lp_man_text(FILE *f, const char *text)
{
	if (*text == '.' || *text == '\'')
		fputs("\\&", f);
	lp_man_esc(f, text);
	fputc('\n', f);
}

/* The options of a command as roff: a tagged paragraph each. */
void lp_opts_man(FILE *f, const struct lp_cmd_opt *opts)
{
	const struct lp_opt *op;

	for (; opts->id != OPT_NR; opts++) {
		op = lp_opt_info(opts->id);
		fputs(op->arg ? ".TP\n.BI \\-\\-" : ".TP\n.B \\-\\-", f);
		lp_man_esc(f, op->name);
		if (op->arg) {
			fputs(" \" ", f);
			lp_man_esc(f, op->arg);
			fputc('"', f);
		}
		fputc('\n', f);
		lp_man_text(f, opts->help ? opts->help : op->help);
	}
}

/* The title of a list after a command's options ("Memory types"). */
void lp_items_head(FILE *f, bool man, const char *title)
{
	if (man)
		fprintf(f, ".PP\n%s:\n", title);
	else
		fprintf(f, "\n%s:\n", title);
}

/* One item of such a list: its name and what it is. */
void lp_item_help(FILE *f, bool man, const char *name, const char *help)
{
	if (man) {
		fputs(".TP\n.B ", f);
		lp_man_text(f, name);
		lp_man_text(f, help);
		return;
	}
	fprintf(f, "  %-17s", name);
	if (strlen(name) > 16)
		fprintf(f, "\n%19s", "");
	lp_text_wrap(f, help, 19, 19);
}

/* "[--size N]", "--mem TYPE": one option in a synopsis */
static const char *opt_synopsis(enum opt_id id, bool needed, char *buf,
				size_t n)
{
	const struct lp_opt *op = lp_opt_info(id);

	snprintf(buf, n, "%s--%s%s%s%s", needed ? "" : "[", op->name,
		 op->arg ? LP_NBSP_S : "", op->arg ? op->arg : "",
		 needed ? "" : "]");
	return buf;
}

/* "longpin lifetime CASE --mem TYPE [--size N] ...", wrapped; or roff (@man) */
void lp_cmd_synopsis(FILE *f, const struct lp_cmd *c, bool man)
{
	char line[2048], w[64];
	const struct lp_cmd_opt *op;
	size_t len;

	len = snprintf(line, sizeof(line), "%s%s%s%s", man ? "" : "longpin ",
		       man ? "" : c->name, c->args && !man ? " " : "",
		       c->args ? c->args : "");
	for (op = c->opts; op->id != OPT_NR && len < sizeof(line); op++)
		if (op->id != OPT_HELP)
			len += snprintf(line + len, sizeof(line) - len, " %s",
					opt_synopsis(op->id,
						     c->needs & OPT(op->id),
						     w, sizeof(w)));
	if (man) {
		fprintf(f, ".B longpin %s\n", c->name);
		if (line[*line == ' '])
			lp_man_text(f, line + (*line == ' '));
		fputs(".br\n", f);
	} else {
		lp_text_wrap(f, line, 8, 0);
	}
}

/* The help of command @c: its synopsis, what it does, its options. */
void lp_cmd_help(FILE *f, const struct lp_cmd *c)
{
	fputs("usage: ", f);
	lp_cmd_synopsis(f, c, false);
	fputc('\n', f);
	lp_text_wrap(f, c->text, 0, 0);
	fputs("\nOptions:\n", f);
	lp_opts_help(f, c->opts);
	if (c->more)
		c->more(f, false);
}
