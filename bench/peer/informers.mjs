// The measured peer: @kubernetes/client-node informers on pods and nodes, written as its README
// shows them (makeInformer over list*ForAllNamespaces: one unpaginated LIST, then a watch).
// Usage: node informers.mjs KUBECONFIG
// Prints one JSON line once both informers have started (LIST applied to the cache, watch open):
//   {"sync_s":…, "rss_mb":…, "hwm_mb":…, "pods":…, "nodes":…}
// sync_s counts from the process start (performance.timeOrigin) so module loading is included,
// as berth-manager's exec-to-/readyz includes its start-up. Then it exits.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as k8s from '@kubernetes/client-node';

function procStatusMb(field) {
  const m = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  if (!m) throw new Error(`no ${field} in /proc/self/status`);
  return Number(m[1]) / 1024;
}

const kubeconfig = process.argv[2];
if (!kubeconfig) {
  console.error('usage: node informers.mjs KUBECONFIG');
  process.exit(2);
}
const kc = new k8s.KubeConfig();
kc.loadFromFile(kubeconfig);
const core = kc.makeApiClient(k8s.CoreV1Api);

const pods = k8s.makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
const nodes = k8s.makeInformer(kc, '/api/v1/nodes', () => core.listNode());
for (const informer of [pods, nodes]) {
  // An error before sync is fatal for the measurement: report it and fail rather than hang.
  informer.on('error', (err) => {
    console.error(`informer error: ${err?.message ?? err}`);
    process.exit(1);
  });
}
await Promise.all([pods.start(), nodes.start()]);
const syncS = performance.now() / 1000;
const result = {
  sync_s: Number(syncS.toFixed(3)),
  rss_mb: Number(procStatusMb('VmRSS').toFixed(1)),
  hwm_mb: Number(procStatusMb('VmHWM').toFixed(1)),
  pods: pods.list().length,
  nodes: nodes.list().length,
};
console.log(JSON.stringify(result));
await Promise.all([pods.stop(), nodes.stop()]);
process.exit(0);
