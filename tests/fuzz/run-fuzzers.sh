#!/bin/sh
# Runs every built libFuzzer target for a fixed time over its seed corpus
# (fixtures/fuzz/<name without fuzz_>/, when there is one) and fails if any
# of them finds a crash, a leak, undefined behaviour or a timeout.
#
#   tests/fuzz/run-fuzzers.sh [BUILD_DIR [SECONDS]]
#
# BUILD_DIR defaults to build-fuzz, configured with
#   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
# New inputs found during the run go to a scratch directory, not into the
# seed corpora; reproducers of failures are kept and their paths printed.
set -u

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build-fuzz}
secs=${2:-20}
case $build in
/*) ;;
*) build=$PWD/$build ;;
esac

if [ ! -d "$build/tests/fuzz" ]; then
	echo "run-fuzzers: no fuzz targets in $build (configure with -Dfuzz=true)" >&2
	exit 2
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/cgpu-fuzz.XXXXXX") || exit 2
# UBSan only reports by default: make it fail the run.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

failed=""
ran=0
for bin in "$build"/tests/fuzz/fuzz_*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue
	name=$(basename "$bin")
	seeds=$src/fixtures/fuzz/${name#fuzz_}
	work=$scratch/$name
	mkdir -p "$work/corpus" "$work/artifacts"
	set -- "$work/corpus"
	[ -d "$seeds" ] && set -- "$@" "$seeds"
	printf '%-28s %3ss ... ' "$name" "$secs"
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@" >"$work/log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
		echo "ok (${runs:-?} runs)"
	else
		echo "FAILED"
		failed="$failed $name"
		tail -n 40 "$work/log" | sed 's/^/    /'
		for a in "$work"/artifacts/*; do
			[ -e "$a" ] && echo "    reproducer: $a"
		done
	fi
	ran=$((ran + 1))
done

if [ "$ran" -eq 0 ]; then
	echo "run-fuzzers: no fuzz targets built in $build/tests/fuzz" >&2
	exit 2
fi
if [ -n "$failed" ]; then
	echo "run-fuzzers: failed:$failed (logs in $scratch)" >&2
	exit 1
fi
rm -rf "$scratch"
echo "run-fuzzers: $ran targets ok"
