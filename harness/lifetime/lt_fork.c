// SPDX-License-Identifier: GPL-2.0
/* --lifetime fork: the parent's pinned pages stay the parent's. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lifetime.h"

/* Child: overwrite its copy of the buffer, exit 0. */
static void fork_child(struct lt *t)
{
	memset(t->m.addr, 0xcc, t->m.len);
	_exit(((volatile char *)t->m.addr)[0] == (char)0xcc ? 0 : 1);
}

/* fork: the parent's pinned pages stay the parent's. */
static int lt_fork(struct lt *t)
{
	char *buf = t->m.addr;
	int status, ret;
	pid_t pid;

	ret = lp_lt_reg(t);
	if (ret)
		return ret;
	lp_pattern_fill(buf + t->chk, t->chk, 42);
	memcpy(t->got, buf + t->chk, t->chk);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		fork_child(t);
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		lp_lt_note(t, "child: status 0x%x", status);
		return -EIO;
	}
	ret = lp_lt_mem_holds(t, buf + t->chk, t->got,
			   "the child's writes appear in the parent's buffer");
	return ret ? ret : lp_lt_read_check(t, buf, buf,
					 "READ_FIXED after fork not seen by the parent");
}

const struct lt_case lp_lt_case_fork = {
	.name = "fork",
	.checks_data = true,
	.help = "fork a child that writes its copy: the parent's pinned pages stay the parent's, READ_FIXED lands in them",
	.run = lt_fork, .has = MEM_PRIVATE, .lacks = MEM_RDONLY,
	.why = "not a private mapping: the child's writes are the parent's by design",
};
