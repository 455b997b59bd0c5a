#!/usr/bin/env bash
# Sets everything up, builds, and runs every test through ctest: unit tests, kubesim
# conformance and end-to-end suites with real kubectl, helm and python3-kubernetes; then the
# ThreadSanitizer suites (scripts/tsan.sh) and the fuzz targets (scripts/fuzz.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$@"
build="${BERTH_BUILD_DIR:-$root/build}"
cd "$build"
ctest --output-on-failure -j"${BERTH_TEST_JOBS:-2}" --timeout 900
# The concurrency suites again under ThreadSanitizer (build-tsan/), then every fuzz target for
# $BERTH_FUZZ_SECONDS (default 60) each (build-fuzz/). BERTH_SKIP_SANITIZER_RUNS=1 skips both.
if [ "${BERTH_SKIP_SANITIZER_RUNS:-0}" != 1 ]; then
  "$root/scripts/tsan.sh"
  "$root/scripts/fuzz.sh" "${BERTH_FUZZ_SECONDS:-60}"
fi
