#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*_fuzz.cc: JSON, Quantity, Duration, label and field selectors,
# kubeconfig, watch-stream framing, annotation parsers) with clang 14, ASan and UBSan into
# build-fuzz/ (or $BERTH_FUZZ_BUILD_DIR) and runs each for SECONDS (default 60) from its seed
# corpus fuzz/corpus/<target>/, $BERTH_FUZZ_JOBS (default 2) at a time. Fails when a target
# crashes, leaks, times out or breaks a property; the input is kept under build-fuzz/artifacts/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
shift || true
build="${BERTH_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${BERTH_FUZZ_JOBS:-2}"

BERTH_BUILD_DIR="$build" BERTH_TARGETS=fuzz "$root/scripts/build.sh" -DBERTH_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14

targets=("$@")
if ((${#targets[@]} == 0)); then
  for dir in "$root"/fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

mkdir -p "$build/artifacts" "$build/logs"
run_one() {
  local target="$1" work="$build/corpus/$1"
  mkdir -p "$work"
  # New inputs go to the work corpus under build-fuzz/, never into the repository's seeds.
  # detect_leaks: a parser that leaks on some input is a bug too.
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1" \
    "$build/bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
    "$work" "$root/fuzz/corpus/$target" >"$build/logs/$target.log" 2>&1
}

declare -A pid_of=()
failed=()
passed=0
reap_one() {  # waits for any running target and reports it
  local status=0 pid target log
  wait -n -p pid "${!pid_of[@]}" || status=$?
  target="${pid_of[$pid]}"
  unset "pid_of[$pid]"
  log="$build/logs/$target.log"
  if ((status == 0)); then
    passed=$((passed + 1))
    echo "fuzz: $target ok ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$') runs," \
      "$(grep -o 'cov: [0-9]*' "$log" | tail -n1 | grep -o '[0-9]*') edges, ${seconds}s)"
  else
    failed+=("$target")
    echo "fuzz: $target FAILED (exit $status); log $log; the input is in $build/artifacts/" >&2
    tail -n 60 "$log" >&2
  fi
}
for target in "${targets[@]}"; do
  [ -x "$build/bin/$target" ] || { echo "fuzz: no binary for $target" >&2; exit 1; }
  while ((${#pid_of[@]} >= jobs)); do reap_one; done
  run_one "$target" &
  pid_of[$!]="$target"
done
while ((${#pid_of[@]})); do reap_one; done
echo "fuzz: ${passed} passed, ${#failed[@]} failed"
((${#failed[@]} == 0))
