# shellcheck shell=sh
# fio-vars.sh (sourced, POSIX sh): what fio does with longpin's job files,
# shared by fio.sh (guest) and tests/host/fio.sh. The memory type of fio's
# mem= and the errno names are longpin's (longpin fio-memtype MEM,
# fio-result ERROR: harness/fio/fio_import.c), so that the guest, the host
# and the harness agree.

# fio_prefault RW: what fio did to the buffer before registering it.
# init_io_u_buffers() fills every buffer of a job that writes (random
# data, all of bs*iodepth) and leaves a read-only job's buffers untouched.
fio_prefault() {
	case $1 in *write* | *rw*) echo write ;; *) echo none ;; esac
}

# The job files carry literal defaults, so that fio runs them as they
# are: global.inc's parameters, and the devices and mounts of
# vm/longpin-vm's guest (vm/README.md), except /dev/pmem0 (the guest's is
# a /dev/pmemN.M). fio.sh runs copies in which ${VARIABLE}s replace
# them, which fio expands from its environment (an unset one to "").
# FIO_PARAMS: VARIABLE=KEY, the keys of global.inc only; FIO_PATHS:
# VARIABLE=PATH, where a value (or the file of mem=TYPE:) is PATH or
# starts with PATH/.
FIO_PARAMS='RW=rw BS=bs IODEPTH=iodepth TARGET_SIZE=size RUNTIME=runtime'
FIO_PATHS='LONGPIN_NULLBLK=/dev/nullb0 LONGPIN_PMEM=/dev/pmem0
LONGPIN_DAX_EXT4=/mnt/dax-ext4 LONGPIN_DAX_XFS=/mnt/dax-xfs
LONGPIN_EXT4=/mnt/ext4 LONGPIN_XFS=/mnt/xfs LONGPIN_TMPFS_DIR=/mnt/tmpfs
LONGPIN_HUGETLBFS=/mnt/huge'

# fio_jobvars FILE: FILE (a job file or global.inc) with those
# ${VARIABLE}s in place of the defaults, on stdout.
fio_jobvars() {
	case $1 in */global.inc | global.inc) _p=$FIO_PARAMS ;; *) _p='' ;; esac
	awk -v params="$_p" -v paths="$FIO_PATHS" '
	BEGIN {
		n = split(params, a, /[ \n]+/)
		for (i = 1; i <= n; i++) { k = index(a[i], "="); pvar[substr(a[i], k + 1)] = substr(a[i], 1, k - 1) }
		np = split(paths, a, /[ \n]+/)
		for (i = 1; i <= np; i++) { k = index(a[i], "="); var[i] = substr(a[i], 1, k - 1); def[i] = substr(a[i], k + 1) }
	}
	/^[ \t]*[;#]/ || !/=/ { print; next }
	{
		k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1)
		if (k in pvar) { print k "=${" pvar[k] "}"; next }
		# mem=TYPE:FILE: the path is FILE
		pre = ""; c = index(v, ":")
		if (substr(v, 1, 1) != "/" && c) { pre = substr(v, 1, c); v = substr(v, c + 1) }
		for (i = 1; i <= np; i++)
			if (v == def[i] || index(v, def[i] "/") == 1) { v = "${" var[i] "}" substr(v, length(def[i]) + 1); break }
		print k "=" pre v
	}' "$1"
}
