#!/usr/bin/env bash
# Sets everything up, builds, and runs the demo on an embedded kubesim: a 3-node cluster, the
# CRDs from crds/, berth-manager, the koordinator user guide's quick start (the reservation is
# placed on a node and its owner pod scheduled into it), its multiple-owners example with a
# Deployment, and a short-lived reservation expiring on
# time (Failed/Expired, with an Event) and then garbage-collected; a check-capacity ProvisioningRequest
# booked and consumed; a ResourcePolicy filling an on-demand unit before spot, and a scale-down that
# removes the spot pods first (pod-deletion-cost); a node drained by label (berth.dev/drain=true) under a PDB,
# then uncordoned.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
BERTH_TARGETS="kubesim berth-manager" "$root/scripts/build.sh"
bin="${BERTH_BUILD_DIR:-$root/build}/bin"
work="$(mktemp -d)"
export KUBECONFIG="$work/kubeconfig"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# --default-scheduler: kubesim binds default-scheduler pods as kube-scheduler would (the last part).
"$bin/kubesim" --port 0 --kubeconfig-out "$KUBECONFIG" --nodes 3 --default-scheduler >"$work/kubesim.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -f "$KUBECONFIG" ] && break; sleep 0.1; done
[ -f "$KUBECONFIG" ] || { cat "$work/kubesim.log"; exit 1; }

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
# wait_for DESCRIPTION SECONDS COMMAND...: polls COMMAND until it succeeds or the deadline passes.
wait_for() {
  local what="$1" secs="$2"; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then echo "demo: timed out waiting for $what" >&2; return 1; fi
    sleep 0.2
  done
}

step kubectl get nodes -o wide
step kubectl apply -f "$root/crds/"
step kubectl api-resources --api-group=scheduling.koordinator.sh

metrics_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/berth-manager" --kubeconfig "$KUBECONFIG" --metrics-bind-address "127.0.0.1:$metrics_port" --metrics-secure \
  --extender-bind-address 127.0.0.1:0 --health-probe-bind-address 127.0.0.1:0 --reservation-gc-duration 5s \
  >"$work/berth-manager.log" 2>&1 &
pids+=($!)
echo; echo "berth-manager started (reservation GC after 5s; HTTPS metrics on :$metrics_port; log: $work/berth-manager.log)"

# The user guide's quick start: berth places the reservation, then schedules its owner pod into it.
step kubectl create -f "$root/e2e/testdata/reservation-demo.yaml"
wait_for "reservation-demo to be placed" 10 bash -c '[ -n "$(kubectl get reservation reservation-demo -o jsonpath={.status.nodeName})" ]'
step kubectl get reservation reservation-demo -o wide
step kubectl create -f "$root/e2e/testdata/pod-demo-0.yaml"
wait_for "pod-demo-0 to run" 10 bash -c '[ "$(kubectl get pod pod-demo-0 -o jsonpath={.status.phase})" = Running ]'
step kubectl get pod pod-demo-0 -o wide
wait_for "reservation-demo to count its owner" 10 bash -c '[ -n "$(kubectl get reservation reservation-demo -o jsonpath={.status.currentOwners})" ]'
step kubectl get reservation reservation-demo -o jsonpath='{"phase: "}{.status.phase}{"\nnode: "}{.status.nodeName}{"\nallocatable: "}{.status.allocatable}{"\nallocated: "}{.status.allocated}{"\ncurrentOwners: "}{.status.currentOwners}{"\n"}'

# The guide's "Reserve on Specified Node, with Multiple Owners": kubesim's Deployment controller makes
# the app-demo pods, berth binds both into reservation-demo-big on node-1 without double counting.
step kubectl create -f "$root/e2e/testdata/reservation-demo-big.yaml"
wait_for "reservation-demo-big to be Available" 10 bash -c '[ "$(kubectl get reservation reservation-demo-big -o jsonpath={.status.phase})" = Available ]'
step kubectl create -f "$root/e2e/testdata/app-demo.yaml"
step kubectl rollout status deployment/app-demo --timeout=30s
step kubectl get pods -l app=app-demo -o wide
wait_for "reservation-demo-big to count both owners" 10 bash -c '[ "$(kubectl get reservation reservation-demo-big -o jsonpath={.status.allocated.cpu})" = 4 ]'
step kubectl get reservation reservation-demo-big -o jsonpath='{"allocatable: "}{.status.allocatable}{"\nallocated: "}{.status.allocated}{"\n"}'
printf '\n\033[1m$ kubectl describe node node-1 | grep -A 8 "Allocated resources"\033[0m\n'
kubectl describe node node-1 | grep -A 8 "Allocated resources"
step kubectl delete deployment app-demo
step kubectl delete reservation reservation-demo-big

# ProvisioningRequest, check-capacity (Cluster Autoscaler's example): berth finds room, books it as a
# Reservation only the request's consumer pods may use, and releases it once they are bound.
step kubectl create -f "$root/e2e/testdata/provisioningrequest/check-capacity.yaml"
wait_for "the request to be Provisioned" 15 bash -c "[ \"\$(kubectl get provreq provreq-check-capacity -o jsonpath='{.status.conditions[?(@.type==\"Provisioned\")].status}')\" = True ]"
step kubectl get provreq provreq-check-capacity
step kubectl get reservations -l berth.dev/provisioning-request-name=provreq-check-capacity -o wide
cat >"$work/consumer.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: provreq-consumer
  namespace: default
  annotations:
    autoscaling.x-k8s.io/consume-provisioning-request: provreq-check-capacity
spec:
  schedulerName: koord-scheduler
  containers:
  - name: pi
    image: perl
    resources: {requests: {cpu: 700m, memory: 500Mi}}
YAML
step kubectl create -f "$work/consumer.yaml"
wait_for "the booking to be consumed" 15 bash -c "[ \"\$(kubectl get provreq provreq-check-capacity -o jsonpath='{.status.conditions[?(@.type==\"BookingExpired\")].reason}')\" = CapacityBookingConsumed ]"
step kubectl get pod provreq-consumer -o wide
step kubectl get provreq provreq-check-capacity -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}'
step kubectl delete pod provreq-consumer

# ResourcePolicy: an on-demand unit (priority 10, at most 2 pods) fills first, the spot unit takes the
# rest; the pod-deletion-cost berth writes makes a scale-down remove the spot pods first.
step kubectl label node node-0 pool=on-demand
step kubectl label node node-1 node-2 pool=spot
cat >"$work/policy.yaml" <<'YAML'
apiVersion: scheduling.sigs.x-k8s.io/v1alpha1
kind: ResourcePolicy
metadata: {name: web, namespace: default}
spec:
  podSelector: {matchLabels: {app: web}}
  strategy: prefer
  units:
  - {name: on-demand, priority: 10, maxCount: 2, nodeSelector: {matchLabels: {pool: on-demand}}}
  - {name: spot, priority: 1, nodeSelector: {matchLabels: {pool: spot}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      schedulerName: koord-scheduler
      containers:
      - {name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 128Mi}}}
YAML
step kubectl apply -f "$work/policy.yaml"
step kubectl rollout status deployment/web --timeout=30s
step kubectl get pods -l app=web -o custom-columns='NAME:.metadata.name,NODE:.spec.nodeName,DELETION-COST:.metadata.annotations.controller\.kubernetes\.io/pod-deletion-cost'
wait_for "the policy status to count the pods" 15 bash -c '[ "$(kubectl get rsp web -o jsonpath={.status.unitSummary})" = "on-demand 2/2, spot 3" ]'
step kubectl get rsp web
step kubectl scale deployment/web --replicas=2
wait_for "the scale-down" 15 bash -c '[ "$(kubectl get pods -l app=web --no-headers | wc -l)" = 2 ]'
echo; echo "after scaling to 2, the on-demand pods remain:"
step kubectl get pods -l app=web -o wide
step kubectl delete -f "$work/policy.yaml"

cat >"$work/short.yaml" <<'YAML'
apiVersion: scheduling.koordinator.sh/v1alpha1
kind: Reservation
metadata:
  name: reservation-short
spec:
  ttl: 3s
  owners:
  - object: {name: pod-demo-0, namespace: default}
  template:
    metadata: {namespace: default}
    spec:
      containers:
      - name: stress
        image: polinux/stress
        resources: {requests: {cpu: 500m, memory: 800Mi}}
      schedulerName: koord-scheduler
YAML
step kubectl create -f "$work/short.yaml"
echo; echo "waiting for reservation-short to expire (ttl 3s)..."
wait_for "reservation-short to fail" 10 bash -c '[ "$(kubectl get reservation reservation-short -o jsonpath={.status.phase})" = Failed ]'
step kubectl get reservations -o wide
step kubectl get reservation reservation-short -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}'
step kubectl describe reservation reservation-short
echo; echo "waiting for garbage collection (5s after each reservation ended: reservation-demo is Succeeded,"
echo "reservation-short Failed)..."
wait_for "reservation-short to be deleted" 15 bash -c '! kubectl get reservation reservation-short'
wait_for "reservation-demo to be deleted" 15 bash -c '! kubectl get reservation reservation-demo'
step kubectl get reservations -o wide
wait_for "the allocation annotation to be removed" 10 bash -c \
  '[ -z "$(kubectl get pod pod-demo-0 -o jsonpath="{.metadata.annotations.scheduling\.koordinator\.sh/reservation-allocated}")" ]'
echo; echo "the owner pod keeps running after its reservation is gone, without the allocation annotation:"
step kubectl get pod pod-demo-0 -o jsonpath='{.metadata.name}{" "}{.status.phase}{" annotations="}{.metadata.annotations}{"\n"}'

echo; echo "node drain by label: every evictable pod moves through a reservation, one PDB disruption at a time"
cat >"$work/drainweb.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: drainweb, namespace: default}
spec:
  replicas: 4
  selector: {matchLabels: {app: drainweb}}
  template:
    metadata: {labels: {app: drainweb}}
    spec:
      schedulerName: koord-scheduler
      containers:
      - {name: c, image: nginx, resources: {requests: {cpu: 100m}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: drainweb, namespace: default}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: drainweb}}
YAML
step kubectl apply -f "$work/drainweb.yaml"
step kubectl rollout status deployment/drainweb --timeout=30s
drained=$(kubectl get pods -l app=drainweb -o jsonpath='{.items[0].spec.nodeName}')
step kubectl get pods -o wide
step kubectl label node "$drained" berth.dev/drain=true
wait_for "$drained to be drained" 60 bash -c \
  "kubectl get node $drained -o jsonpath='{.metadata.annotations.berth\.dev/drain-status}' | grep -q '\"status\":\"Drained\"'"
step kubectl get node "$drained" -o jsonpath='{"unschedulable: "}{.spec.unschedulable}{"\ndrain-status: "}{.metadata.annotations.berth\.dev/drain-status}{"\n"}'
step kubectl get pmj -l "berth.dev/drain-node=$drained"
step kubectl get pods -o wide
step kubectl get events --field-selector "involvedObject.kind=Node,involvedObject.name=$drained"
step kubectl label node "$drained" berth.dev/drain-
wait_for "$drained to be uncordoned" 15 bash -c "[ \"\$(kubectl get node $drained -o jsonpath={.spec.unschedulable})\" != true ]"
step kubectl get nodes
step kubectl delete -f "$work/drainweb.yaml"

# Pods of the stock kube-scheduler use reservations too. Here kubesim plays kube-scheduler (it binds
# default-scheduler pods itself); with the extender on and no bindVerb, berth puts an owner pod that
# kube-scheduler bound into the reservation on its node.
cat >"$work/stock.yaml" <<EOF
apiVersion: scheduling.koordinator.sh/v1alpha1
kind: Reservation
metadata:
  name: reservation-stock
spec:
  ttl: 1h
  allocateOnce: false
  owners:
    - labelSelector:
        matchLabels:
          app: stock
  template:
    metadata:
      namespace: default
    spec:
      nodeName: node-2
      schedulerName: koord-scheduler
      containers:
        - name: main
          resources:
            requests:
              cpu: "1"
              memory: 1Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: stock-0
  labels:
    app: stock
spec:
  nodeSelector:
    kubernetes.io/hostname: node-2
  containers:
    - name: main
      image: nginx
      resources:
        requests:
          cpu: 500m
          memory: 512Mi
EOF
step kubectl create -f "$work/stock.yaml"
wait_for "stock-0 to be put into reservation-stock" 30 bash -c \
  "kubectl get reservation reservation-stock -o jsonpath='{.status.currentOwners}' | grep -q stock-0"
step kubectl get pod stock-0 -o jsonpath='{"scheduler: "}{.spec.schedulerName}{"\nnode: "}{.spec.nodeName}{"\nreservation-allocated: "}{.metadata.annotations.scheduling\.koordinator\.sh/reservation-allocated}{"\n"}'
step kubectl get reservation reservation-stock -o jsonpath='{"allocated: "}{.status.allocated}{"\ncurrentOwners: "}{.status.currentOwners}{"\n"}'
step kubectl delete -f "$work/stock.yaml"

# Metrics over HTTPS (--metrics-secure): the API server reviews each scrape's token (TokenReview) and
# authorises it (SubjectAccessReview, get /metrics).
step kubectl create serviceaccount prometheus
step kubectl create clusterrole metrics-reader --non-resource-url=/metrics --verb=get
step kubectl create clusterrolebinding prometheus-metrics --clusterrole=metrics-reader --serviceaccount=default:prometheus
step curl -sk -o /dev/null -w 'without a token: HTTP %{http_code}\n' "https://127.0.0.1:$metrics_port/metrics"
printf '\n\033[1m$ %s\033[0m\n' "token=\$(kubectl create token prometheus)"
token=$(kubectl create token prometheus)
step curl -sk -o "$work/metrics.txt" -w 'with the token: HTTP %{http_code}\n' -H "Authorization: Bearer $token" \
  "https://127.0.0.1:$metrics_port/metrics"
grep -m 12 -E '^berth_(reservations|migrations)' "$work/metrics.txt"
# koordinator's per-reservation series (its dashboards read these names).
grep -m 4 -E '^scheduler_reservation_(status_phase|resource)' "$work/metrics.txt" || true

echo
echo "demo: done"
