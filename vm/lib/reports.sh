# shellcheck shell=bash
# longpin-vm, phase: reports. What counts as a kernel report in a guest's
# log: a line holding a headline of harness/kernel-reports.list, the one
# list that longpin's own kernel-log judge (harness/kmsg.c) embeds too.

# report_re LIST: LIST's headlines (fixed strings) as one extended regex
report_re() {
	grep -v '^#' "$1" | grep . | sed 's/[][\.*^$(){}?+|/]/\\&/g' | paste -sd'|'
}
WARN_RE=$(report_re "$REPO/harness/kernel-reports.list")
