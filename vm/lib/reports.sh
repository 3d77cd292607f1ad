# shellcheck shell=bash
# longpin-vm, phase: reports. What counts as a kernel report in a guest's
# log: a line holding a headline of harness/kernel-reports.list, the one
# list that longpin's own kernel-log judge (harness/core/kmsg.c) embeds too.

# report_re LIST: LIST's headlines (fixed strings) as one extended regex
report_re() {
	grep -v '^#' "$1" | grep . | sed 's/[][\.*^$(){}?+|/]/\\&/g' | paste -sd'|'
}
# shellcheck disable=SC2034 # read by channel.sh (vm/longpin-vm sources both) and tests/host/kmsg.sh
WARN_RE=$(report_re "$REPO/harness/kernel-reports.list")
# a regex that matches no line: what allow_re() gives without
# LONGPIN_DMESG_ALLOW
# shellcheck disable=SC2034 # read by channel.sh's allow_re (vm/longpin-vm sources both)
NO_LINE_RE='^\b$x'

# known_false LOG OUT: LOG into OUT without the known false reports, and
# their number on stdout. The one known false report: 6.1.192's GUP hands
# back the zero page of a read-only pin without pinning it (Debian's
# backport of upstream c8070b787519), and gup_test warns "pages[N] is NOT
# dma-pinned" at mm/gup_test.c:50 and dumps the page. After each such
# pin longpin logs "longpin: a read-only pin over N zero-page PTEs (pfn
# P[-Q] ...): gup_test may warn ... up to K times" (harness/pinners/pin_gup.c). A
# warning at line 50 (its WARNING line and its "page dumped because:
# gup_test failure") is left out only when the page it dumps is one of
# the pfns announced, and at most as many as announced in all; anything
# else of gup_test's (another page, one warning too many, line 55) stays
# a report.
known_false() {
	awk '
	function hex(s,   i, v) {
		s = tolower(s); sub(/^0x/, "", s); v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function announced(pfn,   i) {
		for (i = 1; i <= nr; i++)
			if (pfn >= lo[i] && pfn <= hi[i])
				return 1
		return 0
	}
	# pass 1: the announcements, then each warning at line 50 with the
	# pfn its dump names
	FNR == NR && /longpin: a read-only pin over [0-9]+ zero-page PTEs \(pfn / {
		s = $0; sub(/.*\(pfn /, "", s); sub(/\).*/, "", s)
		n = split(s, r, " ")
		for (i = 1; i <= n; i++) {
			nr++; lo[nr] = hex(r[i]); hi[nr] = lo[nr]
			if (index(r[i], "-")) { lo[nr] = hex(substr(r[i], 1, index(r[i], "-") - 1)); hi[nr] = hex(substr(r[i], index(r[i], "-") + 1)) }
		}
		s = $0; sub(/.* up to /, "", s); allow += s + 0
		next
	}
	FNR == NR && /at [^ ]*mm\/gup_test\.c:50 / { warn = FNR; pfn = -1; next }
	FNR == NR && warn && pfn < 0 && /pfn:0x[0-9a-fA-F]+/ {
		s = $0; sub(/.*pfn:/, "", s); sub(/[^0-9a-fA-Fx].*/, "", s); pfn = hex(s); next
	}
	FNR == NR && warn && /page dumped because: gup_test failure/ {
		nb++; bwarn[nb] = warn; bdump[nb] = FNR; bpfn[nb] = pfn; warn = 0; next
	}
	FNR == NR { next }
	# pass 2: the log without the warnings allowed
	FNR == 1 {
		for (b = 1; b <= nb && used < allow; b++)
			if (announced(bpfn[b])) { drop[bwarn[b]] = drop[bdump[b]] = 1; used++ }
	}
	!(FNR in drop) { print }
	END { print used + 0 >cnt }
	' cnt="$2.allowed" "$1" "$1" >"$2"
	cat "$2.allowed"
	rm -f "$2.allowed"
}
