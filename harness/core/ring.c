// SPDX-License-Identifier: GPL-2.0
/*
 * What every user of an io_uring ring shares (the io_uring pinner, the
 * lifetime cases, the torture threads): why a ring could not be set up,
 * as one line naming the fix, and one fixed-buffer read or write waited
 * for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <string.h>

#include "longpin.h"

/*
 * Why io_uring_queue_init() failed with @ret, as a one-line error naming
 * the fix.
 */
int ring_init_err(int ret)
{
	FILE *f;
	int dis = -1;

	if (ret == -ENOSYS)
		return lp_err(LP_SKIP,
			      "this kernel has no io_uring (CONFIG_IO_URING=n): use a kernel with it");
	f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
	if (f) {
		if (fscanf(f, "%d", &dis) != 1)
			dis = -1;
		fclose(f);
	}
	if (ret == -EPERM && dis > 0)
		return lp_err(LP_EUSAGE,
			      "io_uring is disabled (kernel.io_uring_disabled=%d): run `sysctl -w kernel.io_uring_disabled=0` as root",
			      dis);
	return lp_err(LP_EUSAGE, "io_uring_queue_init: %s", strerror(-ret));
}

/* One fixed read or write of @len at @off, waited for: its res. */
int fixed_io_res(struct io_uring *ring, bool write, int fd, void *buf,
		 size_t len, off_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	if (write)
		io_uring_prep_write_fixed(sqe, fd, buf, len, off, idx);
	else
		io_uring_prep_read_fixed(sqe, fd, buf, len, off, idx);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/* One fixed read or write of @len at @off, waited for: 0, or -EIO if short. */
int fixed_io(struct io_uring *ring, bool write, int fd, void *buf, size_t len,
	     off_t off, int idx)
{
	int ret = fixed_io_res(ring, write, fd, buf, len, off, idx);

	return ret == (int)len ? 0 : ret < 0 ? ret : -EIO;
}
