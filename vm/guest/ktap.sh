# ktap.sh: sourced by the guest scripts that print a KTAP-like line per
# longpin run (lifetime.sh, torture.sh); n counts the lines, bad is 1 once
# one failed.
n=0 bad=0

# result NAME STATUS OUTPUT: the result line of one longpin run (77: a
# skip with longpin's reason; a failure also prints the run's output)
result() {
	n=$((n + 1))
	case $2 in
	0) echo "ok $n $1" ;;
	77) echo "ok $n $1 # SKIP $(tail -1 "$3")" ;;
	*) echo "not ok $n $1 (exit $2)"; cat "$3"; bad=1 ;;
	esac
}
