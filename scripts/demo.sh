#!/usr/bin/env bash
# Sets everything up, builds, and runs the demo on an embedded kubesim: a 3-node cluster, the
# CRDs from crds/, and the Reservation quick start from the koordinator user guide.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
bin="${BERTH_BUILD_DIR:-$root/build}/bin"
work="$(mktemp -d)"
export KUBECONFIG="$work/kubeconfig"
"$bin/kubesim" --port 0 --kubeconfig-out "$KUBECONFIG" --nodes 3 >"$work/kubesim.log" 2>&1 &
sim=$!
trap 'kill "$sim" 2>/dev/null; wait "$sim" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do [ -f "$KUBECONFIG" ] && break; sleep 0.1; done
[ -f "$KUBECONFIG" ] || { cat "$work/kubesim.log"; exit 1; }

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
step kubectl get nodes -o wide
step kubectl apply -f "$root/crds/"
step kubectl api-resources --api-group=scheduling.koordinator.sh
step kubectl create -f "$root/e2e/testdata/reservation-demo.yaml"
step kubectl get reservation reservation-demo -o wide
step kubectl describe reservation reservation-demo
step kubectl delete reservation reservation-demo
echo
echo "demo: done (kubesim log: $work/kubesim.log)"
