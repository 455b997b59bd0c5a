#!/usr/bin/env bash
# Configures and builds the whole CMake tree into build/ (or $BERTH_BUILD_DIR). Extra arguments
# go to cmake, e.g. scripts/build.sh -DBERTH_SANITIZE=ON. $BERTH_TARGETS limits what ninja builds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BERTH_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja "$@" >/dev/null
# shellcheck disable=SC2086  # BERTH_TARGETS is a space-separated list
ninja -C "$build" -j"${BERTH_JOBS:-$(nproc)}" ${BERTH_TARGETS:-}
