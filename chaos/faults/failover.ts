// T16: failover. A 3+3 Redis Cluster on loopback (examples/privateRedisCluster.ts), 2 worker
// processes x 4 and a producer enqueuing under load; kill -9 the master serving the queue's
// slot, let its replica be promoted, add a fresh replica to the promoted master (an operator
// replacing the lost host), and count, once with durability 'async' and once 'replicated':
//   - jobs acknowledged to the producer and missing afterwards (Redis replication is async: a
//     master acknowledges writes its replica may never get, and the promotion drops them);
//   - the enqueue latency before the kill (the cost of WAIT), p50 and p99;
//   - the time from the kill until the promoted master answers, the producer is acknowledged
//     again and workers complete jobs again, and that EVERY worker process does (a worker stuck
//     silently after a failover is the known BullMQ defect #648/#3088);
//   - every acknowledged job ends done (exactly once, or its second run is counted and
//     explained: a completion written on the old master and lost with it runs again).
// The contract checked: with 'replicated', no acknowledged job is lost; with both, every
// acknowledged job ends done, and every worker serves again without a restart.

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client, RedisStore } from '../../src/index.js';
import { startRedisCluster, type PrivateRedisCluster } from '../../examples/privateRedisCluster.js';
import { spawnRedisServer, type RedisServer } from '../../examples/privateRedis.js';
import { readOracle } from '../oracle.js';
import { spawnProc, type Proc } from '../procs.js';
import { freePort } from '../redisServer.js';
import { percentile, sleep } from '../lines.js';
import { target, type Result, type RunEnv, type Scenario } from '../scenario.js';
import { producerJobs } from '../workload.js';

const PREFIX = 'chaos';
const QUEUE = 'default';
/** A key of the queue's slot: the master serving it is the one killed. */
const QUEUE_KEY = `${PREFIX}:{${QUEUE}}:queued`;
type Mode = 'async' | 'replicated';

export const t16: Scenario = {
  id: 'T16',
  title: 'Failover: kill -9 a master of a 3+3 cluster under load',
  // In the quick run (the cut variants only, T16c and T16d: 32-42 s on 2 cores with both busy
  // in a CPU hog, 5 runs in a row, 2026-11-28). It was kept out for two defects, both fixed:
  // - the missed promotion once seen in CI (the cut variant's replica not promoted within 30 s):
  //   the cluster was handed over before its replicas' FIRST sync, which waited out
  //   repl-diskless-sync-delay (5 s by default), so the quick run's cut (2 s of warm-up) could
  //   come first; a replica that never had a link counts as disconnected since ever, past
  //   cluster-replica-validity-factor, and Redis refuses to promote it ("Currently unable to
  //   failover: Disconnected from master for longer than allowed"), rightly: it holds none of
  //   the data. startRedisCluster now syncs at once and is ready only once every replica has
  //   synced; the validity factor stays Redis's default (10: 30 s of data age allowed here),
  //   far above the 500 ms cut, so the promotion tested is the one Redis makes on its own;
  // - a worker process that completed nothing after the failover (3 of 6 quick runs before
  //   the fix): its claim-only commit refused during the failover left its lane waiting for a
  //   kick nobody gave (CommitPump, test/supervisor/claimRetry.test.ts).
  quick: true,
  async run(env) {
    const out: Result[] = [];
    // On loopback a plain kill -9 rarely loses anything: a master writes to its replica's socket
    // in the same event-loop pass as it replies, and the kernel delivers what is in the socket
    // even after the master died. The loss comes when the link is down or behind (a partition,
    // a slow link): the cut variant holds the replica (SIGSTOP), has the master drop its link
    // (CLIENT KILL TYPE replica), lets the master take writes alone for 500 ms, kills it, and
    // lets the replica go (SIGCONT): it is promoted without those writes.
    // Ids T16a..T16d: the results table keeps one row per id.
    const variants = [
      { id: 'T16a', lagMs: 0, mode: 'async' },
      { id: 'T16b', lagMs: 0, mode: 'replicated' },
      { id: 'T16c', lagMs: 500, mode: 'async' },
      { id: 'T16d', lagMs: 500, mode: 'replicated' },
    ] as const;
    for (const v of variants)
      if (!env.quick || v.lagMs > 0) out.push(await runMode(env, v.id, v.mode, v.lagMs));
    return out;
  },
};

interface Worker {
  proc: Proc;
  pid: number;
}

/** A worker process on the cluster (chaos/worker.ts), resolved once its supervisor runs. */
async function spawnWorker(script: string, dir: string, seeds: string, mode: Mode): Promise<Worker> {
  const env = {
    ...process.env,
    REDIS_CLUSTER: seeds,
    DURABILITY: mode,
    PREFIX,
    ORACLE_DIR: dir,
    CONCURRENCY: '4',
    QUEUE,
  };
  const proc = spawnProc(process.execPath, [script], { env, stdout: 'pipe' });
  await new Promise<void>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`worker ${proc.pid} not ready within 30 s`)), 30_000);
    proc.child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (/READY \S+ \d+\n/.test(buf)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void proc.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`worker ${proc.pid} exited before it was ready (code ${code}, signal ${signal})`));
    });
  });
  return { proc, pid: proc.pid };
}

/** The enqueues of a test: `loops` producers, each one job at a time, `gapMs` apart. */
class Producer {
  readonly acked = new Map<string, number>();
  /** Enqueues that were not acknowledged, by error code (reported to the producer, not lost). */
  readonly refused = new Map<string, number>();
  /** Latency of each acknowledged enqueue before the kill (ms). */
  readonly latencies: number[] = [];
  steadyUntil = Infinity;
  killAt = Infinity;
  firstAckAfterKill = Infinity;
  private running = true;
  private loops: Promise<void>[] = [];
  private n = 0;

  constructor(private readonly client: Client) {}

  start(loops: number, gapMs: number): void {
    for (let i = 0; i < loops; i++) this.loops.push(this.loop(gapMs));
  }

  private async loop(gapMs: number): Promise<void> {
    while (this.running) {
      const key = `k${++this.n}`;
      const t0 = performance.now();
      const sentAt = Date.now();
      try {
        const id = await this.client.enqueue('simple', { ms: 2 }, { idempotencyKey: key });
        const t = Date.now();
        if (t < this.steadyUntil) this.latencies.push(performance.now() - t0);
        // Acknowledged again: an enqueue sent after the kill (by the promoted master).
        if (sentAt > this.killAt) this.firstAckAfterKill = Math.min(this.firstAckAfterKill, t);
        this.acked.set(id, t);
      } catch (err) {
        const e = err as { code?: string; message?: string };
        const code = e.code ?? `'${String(e.message).slice(0, 60)}'`;
        this.refused.set(code, (this.refused.get(code) ?? 0) + 1);
      }
      await sleep(gapMs);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

/** The port of the master serving `key`'s slot, asked of any live node. */
async function masterOf(cluster: PrivateRedisCluster, key: string, dead = -1): Promise<number | null> {
  const node = cluster.nodes.find((n) => n.port !== dead && n.server.process.exitCode === null);
  if (!node) return null;
  const conn = new Redis({ port: node.port, host: '127.0.0.1', maxRetriesPerRequest: 1, lazyConnect: true });
  conn.on('error', () => {});
  try {
    await conn.connect();
    const slot = Number(await conn.call('CLUSTER', 'KEYSLOT', key));
    const shards = (await conn.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const shard = shards.find(([from, to]) => slot >= from && slot <= to);
    return shard ? Number(shard[2][1]) : null;
  } catch {
    return null;
  } finally {
    conn.disconnect();
  }
}

/** The port of `masterPort`'s replica (CLUSTER NODES: a node whose master is its id). */
async function replicaOf(masterPort: number): Promise<number> {
  const conn = new Redis({ port: masterPort, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  conn.on('error', () => {});
  try {
    const id = String(await conn.call('CLUSTER', 'MYID'));
    const lines = String(await conn.call('CLUSTER', 'NODES')).split('\n');
    const line = lines.find((l) => l.split(' ')[3] === id);
    if (!line) throw new Error(`master ${masterPort} has no replica`);
    return Number(/:(\d+)@/.exec(line.split(' ')[1]!)![1]);
  } finally {
    conn.disconnect();
  }
}

/** Polls until the slot of QUEUE_KEY is served by a node other than `dead`; its port. */
async function untilPromoted(cluster: PrivateRedisCluster, dead: number, timeoutMs: number): Promise<number> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const port = await masterOf(cluster, QUEUE_KEY, dead);
    if (port !== null && port !== dead) {
      const conn = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
      conn.on('error', () => {});
      try {
        if (/role:master/.test(await conn.info('replication'))) return port;
      } catch {
        // not answering yet
      } finally {
        conn.disconnect();
      }
    }
    await sleep(50);
  }
  throw new Error(`no replica was promoted within ${timeoutMs} ms`);
}

/** A fresh node joined to the cluster as a replica of `masterPort` (the lost host replaced). */
async function addReplica(masterPort: number): Promise<RedisServer> {
  let port = 0;
  for (let i = 0; i < 50 && !port; i++) {
    const p = await freePort();
    if (p < 55_000) port = p;
  }
  const server = await spawnRedisServer({
    port,
    extraArgs: ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`],
  });
  const master = new Redis({ port: masterPort, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  const node = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
  master.on('error', () => {});
  node.on('error', () => {});
  try {
    // Its first sync at once, not after the diskless-sync delay (5 s by default).
    await master.config('SET', 'repl-diskless-sync-delay', '0');
    const masterId = String(await master.call('CLUSTER', 'MYID'));
    await node.call('CLUSTER', 'MEET', '127.0.0.1', String(masterPort));
    const end = Date.now() + 15_000;
    for (;;) {
      try {
        await node.call('CLUSTER', 'REPLICATE', masterId);
        break;
      } catch (err) {
        if (Date.now() > end) throw err;
        await sleep(100); // the node does not know the master yet
      }
    }
    while (!/connected_slaves:[1-9]/.test(await master.info('replication'))) {
      if (Date.now() > end) throw new Error('the replacement replica did not connect within 15 s');
      await sleep(50);
    }
    return server;
  } finally {
    master.disconnect();
    node.disconnect();
  }
}

/** Until nothing is queued, delayed, active or parked (twice, 200 ms apart); false after `timeoutMs`. */
async function settle(store: RedisStore, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  let quiet = 0;
  while (Date.now() < end) {
    try {
      const c = await store.counts(QUEUE);
      quiet = c.queued + c.delayed + c.active + c.waiting === 0 ? quiet + 1 : 0;
      if (quiet >= 2) return true;
    } catch {
      quiet = 0;
    }
    await sleep(200);
  }
  return false;
}

async function runMode(env: RunEnv, id: string, mode: Mode, lagMs: number): Promise<Result> {
  const startedAt = Date.now();
  const warmMs = env.quick ? 2_000 : 8_000;
  const afterMs = env.quick ? 3_000 : 10_000;
  const cluster = await startRedisCluster({ masters: 3, replicas: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'machinist-chaos-failover-'));
  const seeds = cluster.seeds.map((s) => `${s.host}:${s.port}`).join(',');
  const store = new RedisStore({ cluster: { nodes: [...cluster.seeds] }, prefix: PREFIX, durability: mode });
  const client = new Client({ store, jobs: producerJobs, queue: QUEUE });
  const workers: Worker[] = [];
  let replacement: RedisServer | undefined;
  /** The victim's replica while it is held back (SIGSTOP) in the lagging variant. */
  let stopped: ChildProcess | undefined;
  let ok = false;
  try {
    workers.push(...(await Promise.all([0, 1].map(() => spawnWorker(env.worker, dir, seeds, mode)))));
    const producer = new Producer(client);
    producer.start(4, 10);
    await sleep(warmMs);
    const victim = await masterOf(cluster, QUEUE_KEY);
    if (victim === null) throw new Error(`no master serves ${QUEUE_KEY}`);
    // The latency figures are of the steady state: before the cut or the kill.
    producer.steadyUntil = Date.now();
    if (lagMs > 0) {
      const port = await replicaOf(victim);
      stopped = cluster.nodes.find((n) => n.port === port)!.server.process;
      stopped.kill('SIGSTOP');
      const admin = new Redis({ port: victim, host: '127.0.0.1', maxRetriesPerRequest: 1 });
      admin.on('error', () => {});
      try {
        await admin.call('CLIENT', 'KILL', 'TYPE', 'replica');
      } finally {
        admin.disconnect();
      }
      await sleep(lagMs);
    }
    const killAt = Date.now();
    producer.killAt = killAt;
    await cluster.kill(victim);
    stopped?.kill('SIGCONT');
    const promoted = await untilPromoted(cluster, victim, 30_000);
    const promotedAt = Date.now();
    replacement = await addReplica(promoted);
    const replicaAt = Date.now();
    await sleep(afterMs);
    await producer.stop();
    const settled = await settle(store, 60_000);

    // What the workers wrote (oracle C lines: id token pid t sent) and what the store holds.
    const lines = readOracle(dir);
    const completions = new Map<string, number>();
    let firstDoneAfterKill = Infinity;
    const servedAfter = new Map<number, number>(workers.map((w) => [w.pid, 0]));
    for (const l of lines) {
      if (l.kind !== 'C') continue;
      completions.set(l.f[0]!, (completions.get(l.f[0]!) ?? 0) + 1);
      // Served again: a done write sent after the kill and acknowledged (by the promoted master).
      const t = Number(l.f[3]);
      if (Number(l.f[4]) > killAt) firstDoneAfterKill = Math.min(firstDoneAfterKill, t);
      const pid = Number(l.f[2]);
      if (t > replicaAt) servedAfter.set(pid, (servedAfter.get(pid) ?? 0) + 1);
    }
    const lost: string[] = [];
    const notDone: string[] = [];
    for (const id of producer.acked.keys()) {
      const rec = await store.getJob(id, QUEUE);
      if (!rec) lost.push(id);
      else if (rec.status !== 'done') notDone.push(`${id}:${rec.status}`);
    }
    const doubles = [...completions.values()].filter((n) => n > 1).length;
    const lat = producer.latencies;
    const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : 'never');
    const refused = [...producer.refused].map(([c, n]) => `${n} ${c}`).join(', ') || 'none';
    const stuckWorkers = [...servedAfter].filter(([, n]) => n === 0).map(([pid]) => pid);
    const targets = [
      target('all work settled', settled, settled ? 'yes' : 'no'),
      mode === 'replicated'
        ? target(
            '0 acknowledged jobs lost (replicated)',
            lost.length === 0,
            `${lost.length} of ${producer.acked.size}`,
          )
        : target(
            'acknowledged jobs lost (async: measured, no target)',
            true,
            `${lost.length} of ${producer.acked.size}`,
          ),
      target(
        'every acknowledged job that survived ends done',
        notDone.length === 0,
        notDone.length === 0 ? `${producer.acked.size - lost.length} done` : notDone.slice(0, 5).join(' '),
      ),
      target(
        'every worker process completes jobs after the failover (reconnects without a restart)',
        stuckWorkers.length === 0,
        `${workers.length - stuckWorkers.length} of ${workers.length}; a done write sent after the kill ` +
          `acknowledged in ${ms(firstDoneAfterKill - killAt)}`,
      ),
    ];
    ok = targets.every((t) => t.ok);
    return {
      id,
      title: `Failover of a cluster master${lagMs ? `, its replica cut off ${lagMs} ms before` : ''} (${mode})`,
      procedure:
        `A 3+3 cluster (cluster-node-timeout 2 s), 2 workers x 4, 4 producer loops enqueuing 'simple' ` +
        `jobs (2 ms) 10 ms apart with durability '${mode}'; after ${warmMs / 1000} s kill -9 the master ` +
        `of the queue's slot${lagMs ? ` (${lagMs} ms after its replica was held, SIGSTOP, and its link cut, CLIENT KILL TYPE replica; SIGCONT after the kill)` : ''}, wait for the promotion, join a fresh replica to the promoted master, ` +
        `produce ${afterMs / 1000} s more, settle, and look up every acknowledged job.`,
      targets,
      // The table's columns (no children, no sends in this workload): a second completion here
      // is a first one the failover lost (written on the old master only), explained by the fault.
      figures: {
        jobs: producer.acked.size,
        children: 0,
        lost: lost.length,
        stuck: notDone.length,
        doubleComplete: doubles,
        duplicates: doubles,
        unexplained: 0,
        reRunCheckpoint: 0,
        fannedTwice: 0,
        lostEvents: 0,
        cancelBroken: 0,
        crashes: 0,
        wrongEnd: 0,
        refused: lines.filter((l) => l.kind === 'R').length,
        examples: {},
      },
      notes: [
        `enqueue latency before the fault: p50 ${lat.length ? percentile(lat, 50).toFixed(2) : '-'} ms, ` +
          `p99 ${lat.length ? percentile(lat, 99).toFixed(2) : '-'} ms (${lat.length} enqueues)`,
        `after the kill: replica promoted in ${ms(promotedAt - killAt)}, producer acknowledged again in ` +
          `${ms(producer.firstAckAfterKill - killAt)}; completions per worker after the new replica joined: ` +
          [...servedAfter].map(([pid, n]) => `${pid}: ${n}`).join(', '),
        `enqueues not acknowledged (reported to the producer, not lost): ${refused}`,
        `jobs completed twice: ${doubles} (a completion written on the old master and lost with it runs again)`,
        ...(lost.length ? [`lost: ${lost.slice(0, 5).join(', ')}${lost.length > 5 ? ', ...' : ''}`] : []),
      ],
      seconds: (Date.now() - startedAt) / 1000,
      kept: ok && !env.keep ? undefined : dir,
    };
  } finally {
    stopped?.kill('SIGCONT');
    await Promise.all(workers.map((w) => w.proc.kill()));
    client.close();
    await store.close().catch(() => undefined);
    await replacement?.stop('SIGKILL');
    await cluster.stop();
    if (ok && !env.keep) rmSync(dir, { recursive: true, force: true });
  }
}
