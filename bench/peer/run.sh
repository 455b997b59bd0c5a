#!/usr/bin/env bash
# Peer benchmark: berth-manager against @kubernetes/client-node informers on one kubesim.
# Usage: bench/peer/run.sh [--pods N (150000)] [--nodes N (5000)] [--runs N (1)] [--json]
#        quick check: bench/peer/run.sh --pods 2000 --nodes 100
# Needs node (>= 20) and npm, and build/bin/{kubesim,berth-manager}
# (BERTH_TARGETS="kubesim berth-manager" scripts/build.sh). The npm packages (pinned in
# bench/peer/package.json and package-lock.json) are installed into $BERTH_BUILD_DIR/peer-bench
# (default build/peer-bench) on first use, so only that first run needs the registry.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${BERTH_BUILD_DIR:-$root/build}"
work="$build/peer-bench"
for tool in node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "peer bench: $tool not found; install Node.js >= 20 and npm to run it" >&2
    exit 2
  fi
done
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if (( node_major < 20 )); then
  echo "peer bench: node $(node --version) is too old (undici 7 needs >= 20.18)" >&2
  exit 2
fi
mkdir -p "$work"
# Reinstall only when the pinned manifest changed.
if ! cmp -s "$root/bench/peer/package-lock.json" "$work/package-lock.json" || [[ ! -d "$work/node_modules" ]]; then
  cp "$root/bench/peer/package.json" "$root/bench/peer/package-lock.json" "$work/"
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
# ES modules resolve packages next to the importing file, so the scripts run from $work.
cp "$root/bench/peer/bench.mjs" "$root/bench/peer/informers.mjs" "$work/"
BERTH_ROOT="$root" exec node "$work/bench.mjs" --bin "$build/bin" "$@"
