# SPDX-License-Identifier: GPL-2.0-only
# Test BPF programs run a known number of times (tests/helpers/prog_runner.c:
# BPF_PROG_TEST_RUN), for the bpf_programs tests. Source after common.sh.
RUNNER="$CGPERF_BUILD/tests/prog_runner"

# runner_start NAME PROG_NAME [btf]: prog_runner as coprocess NAME (btf: its
# program has BTF function info); its id in ${NAME}_ID.
declare -A RIN ROUT
runner_start() {
	local fifo_in="$TMP/$1.in" fifo_out="$TMP/$1.out" id
	mkfifo "$fifo_in" "$fifo_out"
	"$RUNNER" "${@:2}" <"$fifo_in" >"$fifo_out" &
	STARTED_PIDS+=("$!"); eval "${1}_PID=$!"
	exec {RIN[$1]}>"$fifo_in" {ROUT[$1]}<"$fifo_out"
	read -r -u "${ROUT[$1]}" id || fail "prog_runner $2 did not start"
	eval "${1}_ID=$id"
	log "$2: program id $id"
}
runner() { # runner NAME N: run NAME's program N times
	local reply
	echo "run $2" >&"${RIN[$1]}"
	read -r -u "${ROUT[$1]}" reply; [ "$reply" = "ran $2" ] || fail "prog_runner $1: $reply"
}
runner_exit() { # runner_exit NAME: unload NAME's program
	local pid_var="${1}_PID"
	echo exit >&"${RIN[$1]}"; wait "${!pid_var}" || fail "prog_runner $1 failed"
}
# rows FILE: data rows in a CSV file (0 when there is none yet, or it is empty)
rows() { [ -s "$1" ] && echo $(($(wc -l <"$1") - 1)) || echo 0; }
wait_rows() { # wait_rows FILE N: until FILE has more than N rows
	local i
	for ((i = 0; i < 300 * ${CGPERF_SLOW_FACTOR:-1}; i++)); do [ "$(rows "$1")" -gt "$2" ] && return 0; sleep 0.1; done
	fail "no new row in $1 (has $(rows "$1"), want > $2)"
}
