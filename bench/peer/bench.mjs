// Peer benchmark driver (run it through bench/peer/run.sh, which installs the npm packages).
// One kubesim on loopback holds N Running pods (~3 KB of JSON each, the shape of
// bench/informer_sync_driver.cc) and M nodes; then, per run and one at a time:
//   berth-manager: time from exec to the first 200 on /readyz (every informer synced) and its RSS then;
//   client-node:   informers.mjs, time from process start to both informers started, and its RSS then.
// Before loading the pods each client is also measured once on the nodes alone (its baseline), so
// "bytes per pod" is (RSS at sync - baseline RSS) / pods, not the runtime's fixed cost.
// Flags: --pods N (150000) --nodes N (5000) --runs N (1) --bin DIR (build/bin) --json (also print
//        one JSON line) --berth-arg ARG (repeatable: an extra berth-manager flag, e.g.
//        --berth-arg --controllers=reservation to see what one controller costs)
//        --berth-only (skip client-node) --compare-berth "LABEL=PATH [ARG...]" (repeatable: another
//        berth-manager binary, with extra flags of its own, measured against the same kubesim in
//        every run, e.g. a build of the previous commit, so before/after figures share the cluster
//        and the machine's load). --hold: load the cluster, print kubesim's kubeconfig, and keep
//        kubesim up without measuring anything until SIGINT/SIGTERM (to profile one client against
//        the same cluster many times without reloading it).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import http from 'node:http';
import { Pool } from 'undici';
import * as k8s from '@kubernetes/client-node';

const here = dirname(fileURLToPath(import.meta.url));
const repo = process.env.BERTH_ROOT ?? join(here, '..', '..');

function parseFlags(argv) {
  const flags = { pods: 150000, nodes: 5000, runs: 1, bin: join(repo, 'build', 'bin'), json: false, berthArgs: [], skipNode: false, compare: [], hold: false };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    const int = (name, min) => {
      const s = next();
      if (!/^\d+$/.test(s) || Number(s) < min) throw new Error(`${name} must be an integer >= ${min}, got "${s}"`);
      return Number(s);
    };
    if (a === '--pods') flags.pods = int('--pods', 0);
    else if (a === '--nodes') flags.nodes = int('--nodes', 1);
    else if (a === '--runs') flags.runs = int('--runs', 1);
    else if (a === '--bin') flags.bin = next();
    else if (a === '--json') flags.json = true;
    else if (a === '--berth-arg') flags.berthArgs.push(next());
    else if (a === '--berth-only') flags.skipNode = true;
    else if (a === '--hold') flags.hold = true;
    else if (a === '--compare-berth') {
      const v = next();
      const eq = v.indexOf('=');
      if (eq <= 0 || eq === v.length - 1) throw new Error(`--compare-berth wants LABEL=PATH, got "${v}"`);
      const [path, ...args] = v.slice(eq + 1).trim().split(/\s+/);
      flags.compare.push({ label: v.slice(0, eq), path, args });
    } else throw new Error(`unknown flag ${a} (known: --pods N --nodes N --runs N --bin DIR --json --berth-arg ARG ` +
      '--berth-only --compare-berth LABEL=PATH --hold)');
  }
  return flags;
}

// ---- The data: namespaces, replicas:0 ReplicaSets (owners, as real pods have), Running pods ----
const kApps = 300;
const kNamespaces = 50;
const appName = (app) => `app-${app}`;
const appNamespace = (app) => `ns-${app % kNamespaces}`;

function makeReplicaSet(app) {
  const labels = { app: appName(app) };
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: { name: `${appName(app)}-7d4b9c8f5d`, namespace: appNamespace(app) },
    spec: { replicas: 0, selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: `registry.example.com/${appName(app)}:1.4.2` }] } } },
  };
}

function makePod(i, nodes, rsUids) {
  const app = appName(i % kApps);
  const rs = `${app}-7d4b9c8f5d`;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `${rs}-${100000 + i}`, namespace: appNamespace(i % kApps),
      labels: { app, 'pod-template-hash': '7d4b9c8f5d', tier: 'backend', team: `team-${i % 17}` },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: rsUids[i % kApps], controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: `node-${i % nodes}`, serviceAccountName: 'default', priorityClassName: '',
      containers: [
        { name: 'app', image: `registry.example.com/${app}:1.4.2`,
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
          env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'GOMAXPROCS', value: '2' }],
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
          volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] },
        { name: 'sidecar', image: 'registry.example.com/proxy:2.1.0', resources: { requests: { cpu: '50m', memory: '64Mi' } },
          args: ['--listen=:15001', '--upstream=127.0.0.1:8080'] },
      ],
      volumes: [{ name: 'config', configMap: { name: `${app}-config` } }],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
  };
}

// ---- Processes ----------------------------------------------------------------------------------
function procStatusMb(pid, field) {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

async function waitFor(what, deadlineMs, pollMs, fn) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs / 1000} s waiting for ${what}`);
    await sleep(pollMs);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = http.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function probe(port, path) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false, timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(null));
    req.on('timeout', () => { req.destroy(); resolve(null); });
  });
}

function startProcess(cmd, args, logPath) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d) => { log = (log + d.toString()).slice(-200000); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.log = () => log;
  child.saveLog = () => { if (logPath) writeFileSync(logPath, log); };
  return child;
}

async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const done = await Promise.race([child.exited, sleep(10000).then(() => null)]);
  if (!done) {
    child.kill('SIGKILL');
    await child.exited;
  }
}

// ---- kubesim ------------------------------------------------------------------------------------
async function startKubesim(flags, dir) {
  // Berth's CRDs are created at start (berth-manager's Reservation, PodMigrationJob, … informers
  // need them to become ready); the pods are POSTed afterwards over loopback.
  const crdDir = join(repo, 'crds');
  const seed = readdirSync(crdDir).filter((f) => f.endsWith('.yaml')).sort()
    .map((f) => readFileSync(join(crdDir, f), 'utf8')).join('\n---\n');
  writeFileSync(join(dir, 'crds.yaml'), seed);
  const kubeconfig = join(dir, 'kubeconfig');
  // --node-cpu/memory: 30 pods of 300m per node must fit; the kubelet marks them Running.
  const args = ['--port', '0', '--kubeconfig-out', kubeconfig, '--nodes', String(flags.nodes),
    '--node-cpu', '64', '--node-memory', '256Gi', '--seed-file', join(dir, 'crds.yaml'),
    '--no-workload-controllers', '--history-window', '1000'];
  const sim = startProcess(join(flags.bin, 'kubesim'), args, join(dir, 'kubesim.log'));
  await waitFor('kubesim to write its kubeconfig', 120000, 50, async () => {
    if (sim.exitCode !== null) throw new Error(`kubesim exited ${sim.exitCode}:\n${sim.log()}`);
    return existsSync(kubeconfig);
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  const pool = new Pool(cluster.server, {
    connections: 4, pipelining: 1,
    connect: { ca: Buffer.from(cluster.caData, 'base64').toString() },
  });
  const headers = { authorization: `Bearer ${user.token}`, 'content-type': 'application/json', accept: 'application/json' };
  const call = async (method, path, body) => {
    const res = await pool.request({ method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  return { sim, kubeconfig, call, pool };
}

async function loadPods(kube, flags) {
  const t0 = performance.now();
  for (let n = 0; n < kNamespaces; ++n) {
    await kube.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${n}` } });
  }
  const rsUids = [];
  for (let app = 0; app < kApps; ++app) {
    const rs = await kube.call('POST', `/apis/apps/v1/namespaces/${appNamespace(app)}/replicasets`, makeReplicaSet(app));
    rsUids.push(rs.metadata.uid);
  }
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < flags.pods; i = next++) {
      await kube.call('POST', `/api/v1/namespaces/${appNamespace(i % kApps)}/pods`, makePod(i, flags.nodes, rsUids));
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const createdS = (performance.now() - t0) / 1000;
  // The simulated kubelet writes each pod's Running status (conditions, containerStatuses, IPs).
  await waitFor('every pod Running', 15 * 60000, 250, async () => {
    const page = await kube.call('GET', '/api/v1/pods?fieldSelector=status.phase!%3DRunning&limit=1');
    return page.items.length === 0;
  });
  const all = await kube.call('GET', '/api/v1/pods?limit=1');
  const sample = await kube.call('GET', '/api/v1/pods?limit=100');
  const avgPodBytes = sample.items.length ? sample.items.reduce((s, p) => s + JSON.stringify(p).length, 0) / sample.items.length : 0;
  const remaining = all.metadata.remainingItemCount ?? 0;
  return { createdS, loadS: (performance.now() - t0) / 1000, serverPods: all.items.length + remaining, avgPodBytes };
}

// ---- The two clients ----------------------------------------------------------------------------
async function measureBerth(flags, kube, dir, tag, binary = join(flags.bin, 'berth-manager'), extraArgs = []) {
  const probePort = await freePort();
  const metricsPort = await freePort();
  const args = ['--kubeconfig', kube.kubeconfig, '--health-probe-bind-address', `127.0.0.1:${probePort}`,
    '--metrics-bind-address', `127.0.0.1:${metricsPort}`, ...flags.berthArgs, ...extraArgs];
  const t0 = performance.now();
  const mgr = startProcess(binary, args, join(dir, `berth-manager.${tag}.log`));
  try {
    await waitFor('berth-manager /readyz', 10 * 60000, 10, async () => {
      if (mgr.exitCode !== null) throw new Error(`berth-manager exited ${mgr.exitCode}:\n${mgr.log().slice(-3000)}`);
      return (await probe(probePort, '/readyz')) === 200;
    });
    const syncS = (performance.now() - t0) / 1000;
    return { sync_s: syncS, rss_mb: procStatusMb(mgr.pid, 'VmRSS'), hwm_mb: procStatusMb(mgr.pid, 'VmHWM') };
  } finally {
    mgr.saveLog();
    await stopProcess(mgr);
  }
}

async function measureClientNode(flags, kube, dir, tag, expectPods) {
  // The heap limit is raised so 150k pods fit (V8's default old space would abort the process).
  const child = startProcess(process.execPath, ['--max-old-space-size=16384', join(here, 'informers.mjs'), kube.kubeconfig],
    join(dir, `client-node.${tag}.log`));
  const { code, signal } = await child.exited;
  child.saveLog();
  const line = child.log().split('\n').find((l) => l.startsWith('{'));
  if (code !== 0 || !line) throw new Error(`client-node informers exited ${code ?? signal}:\n${child.log().slice(-3000)}`);
  const r = JSON.parse(line);
  if (r.pods !== expectPods) throw new Error(`client-node cached ${r.pods} pods, kubesim holds ${expectPods}`);
  return r;
}

// ---- Report -------------------------------------------------------------------------------------
const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const range = (xs, f) => (xs.length === 1 ? f(xs[0]) : `${f(Math.min(...xs))}–${f(Math.max(...xs))}`);

function machine() {
  const c = cpus();
  return { nproc: c.length, cpu: c[0]?.model ?? 'unknown', loadavg: loadavg().map((x) => x.toFixed(2)).join(' ') };
}

async function main() {
  let flags;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (e) {
    console.error(`peer bench: ${e.message}`);
    process.exit(2);
  }
  for (const b of ['kubesim', 'berth-manager']) {
    if (!existsSync(join(flags.bin, b))) {
      console.error(`peer bench: ${join(flags.bin, b)} not found (build it: BERTH_TARGETS="kubesim berth-manager" scripts/build.sh)`);
      process.exit(2);
    }
  }
  for (const c of flags.compare) {
    if (!existsSync(c.path)) {
      console.error(`peer bench: --compare-berth ${c.label}: ${c.path} not found`);
      process.exit(2);
    }
  }
  const clientNodeVersion = flags.skipNode ? 'skipped'
    : JSON.parse(readFileSync(join(here, 'node_modules', '@kubernetes', 'client-node', 'package.json'), 'utf8')).version;
  // Every berth-manager binary measured, each once per run on the same cluster.
  const berths = [{ label: 'berth-manager', path: join(flags.bin, 'berth-manager'), args: [] }, ...flags.compare];
  const machineStart = machine();
  const dir = mkdtempSync(join(tmpdir(), 'berth-peer-'));
  const kube = await startKubesim(flags, dir);
  let ok = false;
  try {
    console.error(`peer bench: kubesim up with ${flags.nodes} nodes; baselines (nodes only) …`);
    const berthBases = [];
    for (const [i, b] of berths.entries()) berthBases.push(await measureBerth(flags, kube, dir, `baseline${i}`, b.path, b.args));
    const nodeBase = flags.skipNode ? null : await measureClientNode(flags, kube, dir, 'baseline', 0);
    console.error(`peer bench: loading ${flags.pods} pods …`);
    const load = await loadPods(kube, flags);
    if (load.serverPods !== flags.pods) throw new Error(`kubesim holds ${load.serverPods} pods, wanted ${flags.pods}`);
    const simRss = procStatusMb(kube.sim.pid, 'VmRSS');
    console.error(`peer bench: loaded in ${f1(load.loadS)} s (POSTs ${f1(load.createdS)} s), kubesim RSS ${f1(simRss)} MB`);
    if (flags.hold) {
      console.log(`peer bench: holding kubesim (pid ${kube.sim.pid}); KUBECONFIG=${kube.kubeconfig}; SIGINT or SIGTERM stops it`);
      await new Promise((resolve) => { process.once('SIGINT', resolve); process.once('SIGTERM', resolve); });
      ok = true;
      return;
    }
    const runs = [];
    for (let r = 1; r <= flags.runs; ++r) {
      const berthRuns = [];
      for (const [i, b] of berths.entries()) berthRuns.push(await measureBerth(flags, kube, dir, `run${r}.${i}`, b.path, b.args));
      const node = flags.skipNode ? null : await measureClientNode(flags, kube, dir, `run${r}`, flags.pods);
      runs.push({ berth: berthRuns[0], berths: berthRuns, node });
      console.error(`peer bench: run ${r}/${flags.runs}: ` +
        berths.map((b, i) => `${b.label} ${f2(berthRuns[i].sync_s)} s ${f1(berthRuns[i].rss_mb)} MB`).join('; ') +
        (node ? `; client-node ${f2(node.sync_s)} s ${f1(node.rss_mb)} MB` : ''));
    }
    const perPod = (rss, base) => (flags.pods ? ((rss - base) * 1024 * 1024) / flags.pods : 0);
    const rows = berths.map((b, i) => [i === 0 ? 'berth-manager (exec to /readyz 200)' : `${b.label} (${[b.path, ...b.args].join(' ')})`,
      runs.map((x) => x.berths[i]), berthBases[i]]);
    if (!flags.skipNode) {
      rows.push([`@kubernetes/client-node ${clientNodeVersion} informers (pods + nodes)`, runs.map((x) => x.node), nodeBase]);
    }
    const m = machine();
    console.log(`\nPeer benchmark, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: one kubesim on loopback, ` +
      `${flags.pods} Running pods (${Math.round(load.avgPodBytes)} B of JSON each) + ${flags.nodes} nodes, ${flags.runs} run(s)`);
    console.log(`machine: ${m.nproc} CPUs, ${m.cpu}; loadavg ${machineStart.loadavg} at start, ${m.loadavg} at end; node ${process.version}`);
    if (flags.berthArgs.length) console.log(`berth-manager flags: ${flags.berthArgs.join(' ')}`);
    console.log('| client | time to synced caches (s) | RSS at sync (MB) | peak RSS (MB) | RSS with nodes only (MB) | bytes per pod |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, xs, base] of rows) {
      console.log(`| ${name} | ${range(xs.map((x) => x.sync_s), f2)} | ${range(xs.map((x) => x.rss_mb), f1)} | ` +
        `${range(xs.map((x) => x.hwm_mb), f1)} | ${f1(base.rss_mb)} | ${range(xs.map((x) => perPod(x.rss_mb, base.rss_mb)), (v) => v.toFixed(0))} |`);
    }
    let timeRatio = null;
    let rssRatio = null;
    if (!flags.skipNode) {
      timeRatio = median(runs.map((x) => x.node.sync_s / x.berth.sync_s));
      rssRatio = median(runs.map((x) => x.node.rss_mb / x.berth.rss_mb));
      console.log(`client-node / berth (median of runs): time ${f2(timeRatio)}×, RSS ${f1(rssRatio)}×`);
    }
    console.log(`kubesim: load ${f1(load.loadS)} s (POSTs ${f1(load.createdS)} s + kubelet to Running), RSS ${f1(simRss)} MB`);
    if (flags.json) {
      console.log(JSON.stringify({ pods: flags.pods, nodes: flags.nodes, runs, berth_baseline: berthBases[0], berth_baselines: berthBases,
        berths, node_baseline: nodeBase, time_ratio: timeRatio, rss_ratio: rssRatio, load_s: load.loadS, kubesim_rss_mb: simRss,
        avg_pod_json_bytes: load.avgPodBytes, client_node: clientNodeVersion, machine: m }));
    }
    ok = true;
  } finally {
    await kube.pool.close();
    kube.sim.saveLog();
    await stopProcess(kube.sim);
    if (ok) rmSync(dir, { recursive: true, force: true });
    else console.error(`peer bench: logs kept in ${dir}`);
  }
}

main().catch((e) => {
  console.error(`peer bench: ${e.stack ?? e}`);
  process.exit(1);
});
