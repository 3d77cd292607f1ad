// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel reports (a WARNING, a BUG, KASAN, lockdep, a refcount or list
 * corruption, a page dump, a hung task) that the kernel logged while a
 * run went on: /dev/kmsg read from where it ended when the run began.
 * The headlines are harness/kernel-reports.list (embedded at build), the
 * list vm/longpin-vm's scan of a guest's whole dmesg reads too; here they
 * are tied to the run (the row) that provoked them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "longpin.h"

extern const char *const lp_reports_texts[];

#define MAX_MARKS	64

static char *marks[MAX_MARKS];
static size_t nmarks;

/* The list's lines, once: no comment, no blank line. */
static void marks_load(void)
{
	const char *s = lp_reports_texts[0];
	size_t n;

	if (nmarks)
		return;
	for (; *s && nmarks < MAX_MARKS; s += n + (s[n] == '\n')) {
		n = strcspn(s, "\n");
		if (n && s[0] != '#')
			marks[nmarks++] = strndup(s, n);
	}
}

/*
 * LONGPIN_TEST_KMSG=FILE (tests/host/kmsg.sh only): the kernel log is
 * FILE, a captured dmesg read from its start, a line a record.
 */
static FILE *stand_in;

/* /dev/kmsg positioned after the last record, or -1 (not root: unread). */
int lp_kmsg_open(void)
{
	const char *test = getenv("LONGPIN_TEST_KMSG");
	int fd;

	if (test && *test) {
		stand_in = fopen(test, "re");
		return stand_in ? fileno(stand_in) : -1;
	}
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool is_report(const char *msg)
{
	size_t i;

	marks_load();
	for (i = 0; i < nmarks; i++)
		if (strstr(msg, marks[i]))
			return true;
	return false;
}

/*
 * The next record's text into @rec, or false at the end. A record of
 * /dev/kmsg is "prio,seq,usec,flags;text\n" (then " KEY=value" lines),
 * one a read(); the stand-in's are lines.
 */
static bool kmsg_next(int fd, char *rec, size_t n, char **msg)
{
	ssize_t len;

	if (stand_in) {
		if (!fgets(rec, n, stand_in))
			return false;
		rec[strcspn(rec, "\n")] = '\0';
		*msg = rec;
		return true;
	}
	for (;;) {
		len = read(fd, rec, n - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (len <= 0)
			return false;	/* EAGAIN: no more */
		rec[len] = '\0';
		*msg = strchr(rec, ';');
		if (!*msg)
			continue;
		(*msg)++;
		(*msg)[strcspn(*msg, "\n")] = '\0';
		return true;
	}
}

/*
 * Read every record logged since lp_kmsg_open() and close @fd; returns the
 * number of reports among them, the first one's text in @first.
 */
long lp_kmsg_reports(int fd, char *first, size_t n)
{
	char rec[8192], *msg;
	long reports = 0;

	first[0] = '\0';
	while (kmsg_next(fd, rec, sizeof(rec), &msg)) {
		if (!is_report(msg))
			continue;
		if (!reports++)
			snprintf(first, n, "%s", msg);
	}
	if (stand_in)
		fclose(stand_in);
	else
		close(fd);
	stand_in = NULL;
	return reports;
}
