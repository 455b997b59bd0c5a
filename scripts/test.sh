#!/usr/bin/env bash
# Sets everything up, builds, and runs every test through ctest: unit tests, kubesim
# conformance and end-to-end suites with real kubectl, helm and python3-kubernetes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$@"
build="${BERTH_BUILD_DIR:-$root/build}"
cd "$build"
ctest --output-on-failure -j"${BERTH_TEST_JOBS:-2}" --timeout 900
