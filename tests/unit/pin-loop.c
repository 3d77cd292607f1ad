// SPDX-License-Identifier: GPL-2.0
/*
 * pin-loop [KB]: a pinner that is not longpin and takes no lock of its
 * own, as an io_uring application beside a run would be: registers KB
 * (default 1024) of written anonymous memory as a fixed buffer and
 * unregisters it, over and over, until killed; prints "pinning" after
 * the first registration. tests/host/pins.sh runs it beside longpin.
 */
#define _GNU_SOURCE
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	size_t len = (argc > 1 ? strtoul(argv[1], NULL, 10) : 1024) * 1024;
	struct io_uring ring;
	struct iovec iov;
	unsigned long i;
	void *buf;
	int ret;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || io_uring_queue_init(4, &ring, 0)) {
		perror("pin-loop");
		return 1;
	}
	memset(buf, 1, len);
	iov = (struct iovec){ .iov_base = buf, .iov_len = len };
	for (i = 0;; i++) {
		ret = io_uring_register_buffers(&ring, &iov, 1);
		if (ret) {
			fprintf(stderr, "pin-loop: register: %s\n", strerror(-ret));
			return 1;
		}
		if (!i) {
			puts("pinning");
			fflush(stdout);
		}
		io_uring_unregister_buffers(&ring);
	}
}
