// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel reports (a WARNING, a BUG, KASAN, lockdep, a refcount or list
 * corruption, a page dump, a hung task) that the kernel logged while a
 * run went on: /dev/kmsg read from where it ended when the run began.
 * The headlines are those vm/longpin-vm's WARN_RE looks for in a guest's
 * whole dmesg; here they are tied to the run (the row) that provoked them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "longpin.h"

static const char *const report_marks[] = {
	"WARNING: CPU", "BUG:", "Oops", "KASAN", "UBSAN", "refcount_t:",
	"general protection fault", "kernel BUG at",
	"possible circular locking", "inconsistent lock state",
	"possible recursive locking", "Kernel panic", "list_add corruption",
	"list_del corruption", "stack-protector", "page dumped because",
	"blocked for more than",
};

/* /dev/kmsg positioned after the last record, or -1 (not root: unread). */
int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

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

	for (i = 0; i < ARRAY_SIZE(report_marks); i++)
		if (strstr(msg, report_marks[i]))
			return true;
	return false;
}

/*
 * Read every record logged since kmsg_open() and close @fd; returns the
 * number of reports among them, the first one's text in @first.
 * A record is "prio,seq,usec,flags;text\n" (then " KEY=value" lines).
 */
long kmsg_reports(int fd, char *first, size_t n)
{
	char rec[8192], *msg, *end;
	long reports = 0;
	ssize_t len;

	first[0] = '\0';
	for (;;) {
		len = read(fd, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (len <= 0)
			break;		/* EAGAIN: no more */
		rec[len] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		if (!is_report(msg))
			continue;
		if (!reports++)
			snprintf(first, n, "%s", msg);
	}
	close(fd);
	return reports;
}
