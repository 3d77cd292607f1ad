// SPDX-License-Identifier: GPL-2.0
/*
 * lp-runas UID MEMLOCK_KB CMD ARGS...: set RLIMIT_MEMLOCK, drop to UID (no
 * capabilities left), exec CMD. The guest's busybox cannot change users;
 * built static so that it runs in the initramfs as it is.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rlimit rl;
	uid_t uid;

	if (argc < 4) {
		fprintf(stderr, "usage: lp-runas UID MEMLOCK_KB CMD ARGS...\n");
		return 2;
	}
	uid = atoi(argv[1]);
	rl.rlim_cur = rl.rlim_max = strtoull(argv[2], NULL, 10) * 1024;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || setgroups(0, NULL) ||
	    setgid(uid) || setuid(uid)) {
		perror("lp-runas");
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror(argv[3]);
	return 127;
}
