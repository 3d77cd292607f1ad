#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# register.sh: every memory type longpin has (longpin types), registered
# as an io_uring fixed buffer at every prefault (none, read, write), one
# KTAP line each: the kernel's answer is the one the contract of this
# kernel gives, no pin is left after the unregistration, and what
# WRITE_FIXED wrote from the buffer comes back through READ_FIXED. A type
# whose place this machine lacks (a page-cache directory, an NVDIMM) or
# cannot set up (no free huge pages, no THP) is a skip with the reason.
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/ktap.sh"
lp_places
types=$("$LONGPIN" types --list) || exit 1
ktap_header "$(echo "$types" | wc -l)"
for m in $types; do
	why=$(lp_unplaced "$m")
	if [ -n "$why" ]; then
		ktap_skip "register $m" "$why"
		continue
	fi
	lp_case "register $m" register --mem "$m" --size "$LP_SIZE" \
		--prefault all --ios 64 --repeat 1
done
ktap_done
