# shellcheck shell=bash
# longpin-vm, phase: channel. How the guest's results and exit status come
# back, and the kernel reports in its dmesg or console (WARN_RE).

# the first kernel report in a log, whole (up to 40 lines), so that a CI log
# shows the call trace and not only the headline
report_excerpt() { # log
	local n l
	while IFS=: read -r n l; do
		printf '%s\n' "$l" | grep -Eq "${LONGPIN_DMESG_ALLOW:-^\$}" && continue
		printf 'first report (%s, line %s):\n' "$1" "$n"
		awk -v s="$n" 'NR >= s && NR < s + 40 { print } NR > s && /====================|---\[ end trace/ { exit }' "$1"
		return 0
	done < <(grep -nE "$WARN_RE" "$1")
}
# a guest that hung or died: every report headline, then the first report whole
print_reports() { # log
	grep -E "$WARN_RE" "$1" || true
	report_excerpt "$1"
}
