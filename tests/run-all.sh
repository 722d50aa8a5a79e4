#!/bin/sh
# The whole test suite: unit and end-to-end tests on a -Werror build, the same
# suite under AddressSanitizer and UndefinedBehaviorSanitizer, and a short run
# of every fuzz target.  Ends with one line: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."

export LC_ALL=C TZ=UTC NO_COLOR=1 COLUMNS=200
fuzz_seconds=${FUZZ_SECONDS:-15}
status=0

step() { printf '\n==> %s\n' "$*"; }

run_build() { # name, meson options...
	dir=$1; shift
	step "build $dir ($*)"
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
	fi
	ninja -C "$dir" || return 1
	step "test $dir"
	meson test -C "$dir" --print-errorlogs --num-processes 2 || status=1
}

run_build build -Dwerror=true -Dbuildtype=debugoptimized || status=1
# The sanitizers run over the other gzip inflater (zlib); ISA-L's is fuzzed
# under them below (fuzz_gunzip).
run_build build-sanitize -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false -Disal=disabled || status=1

if command -v clang >/dev/null 2>&1; then
	step "fuzz targets, ${fuzz_seconds}s each"
	if [ ! -f build-fuzz/build.ninja ]; then
		CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
			-Dtests=enabled >build-fuzz.setup.log 2>&1 || { cat build-fuzz.setup.log; status=1; }
	fi
	if ninja -C build-fuzz; then
		tests/fuzz/run-fuzzers.sh build-fuzz "$fuzz_seconds" >build-fuzz/fuzz-results.txt 2>&1 || status=1
		cat build-fuzz/fuzz-results.txt
	else
		status=1
	fi
fi

step "summary"
python3 tests/summarize.py build/meson-logs/testlog.json build-sanitize/meson-logs/testlog.json \
	build-fuzz/fuzz-results.txt || status=1
exit $status
