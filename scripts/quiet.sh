# quiet.sh, sourced by the benchmark scripts, defines quiet: it waits until the CPUs were at
# least 90% idle over 2 seconds, or $maxwait seconds passed (0: it does not wait), so that a
# pass of benchmarks starts on a quiet machine. Set maxwait before calling it.
quiet() {
	[ "$maxwait" -gt 0 ] && [ -r /proc/stat ] || return 0
	waited=0
	while :; do
		set -- $(head -n 1 /proc/stat)
		total1=$(($2 + $3 + $4 + $5 + $6 + $7 + $8 + $9)) idle1=$5
		sleep 2
		set -- $(head -n 1 /proc/stat)
		total2=$(($2 + $3 + $4 + $5 + $6 + $7 + $8 + $9)) idle2=$5
		busy=$((100 - 100 * (idle2 - idle1) / (total2 - total1 + 1)))
		[ "$busy" -le 10 ] && return 0
		waited=$((waited + 2))
		if [ "$waited" -ge "$maxwait" ]; then
			echo "$(basename "$0"): CPUs still ${busy}% busy after ${waited}s; running anyway" >&2
			return 0
		fi
	done
}
