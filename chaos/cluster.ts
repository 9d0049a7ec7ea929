// One chaos test's world: its private redis-server, its worker processes, a producer (the
// runner's own Client) that logs every acknowledged enqueue, send and cancel to the oracle, and
// the end of the test: wait until nothing is left to run, collect the records, clean up.

import { MINIMAL_RECORDS } from './mix.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, RedisStore, type EnqueueItem } from '../src/index.js';
import { OracleWriter, readOracle, type OracleLine } from './oracle.js';
import { spawnProc, type Proc } from './procs.js';
import { ChaosRedis, type ChaosRedisOptions } from './redisServer.js';
import type { Collected } from './checker.js';
import { producerJobs } from './workload.js';

export const QUEUE = 'default';

export interface WorkerHandle {
  proc: Proc;
  pid: number;
  workerId: string;
  /** Set before the test signals it: its exit is then not a crash. */
  signalled: boolean;
  /** Its wall clock minus the runner's, as read when it started (ms). */
  clockDelta: number;
}

export interface WorkerOptions {
  /** The worker's wall clock is this far off (faketime), ms. */
  skewMs?: number;
  /** Where the worker reaches Redis (a proxy's URL); default the server itself. */
  url?: string;
  concurrency?: number;
  /** Lease requeues before LEASE_EXPIRED; default 50 (kills in T1 may hit one job often). */
  maxLeaseRequeues?: number;
  /** The schedule loop's lease (SupervisorOptions.schedules.leaseMs); default the Supervisor's. */
  scheduleLeaseMs?: number;
}

export class Cluster {
  readonly prefix = 'chaos';
  readonly oracle: OracleWriter;
  readonly store: RedisStore;
  readonly client: Client;
  readonly workers = new Map<number, WorkerHandle>();
  /** Worker exits nobody asked for (by signal or code), as `pid: how`. */
  readonly unexpectedExits: string[] = [];
  /** Sends and cancels scheduled and not yet acknowledged. */
  private readonly pending = new Set<Promise<unknown>>();
  private closed = false;

  private constructor(
    readonly redis: ChaosRedis,
    readonly dir: string,
    readonly workerScript: string,
    producerUrl: string,
  ) {
    this.oracle = new OracleWriter(dir, 'runner');
    this.store = new RedisStore({ url: producerUrl, prefix: this.prefix });
    this.client = new Client({ store: this.store, jobs: producerJobs, queue: QUEUE });
  }

  static async start(
    workerScript: string,
    options: ChaosRedisOptions & { producerUrl?: (redisUrl: string) => Promise<string> } = {},
  ): Promise<Cluster> {
    const redis = await ChaosRedis.start(options);
    const dir = mkdtempSync(join(tmpdir(), 'machinist-chaos-'));
    const url = options.producerUrl ? await options.producerUrl(redis.url) : redis.url;
    return new Cluster(redis, dir, workerScript, url);
  }

  /** Starts a worker process and resolves once its supervisor runs. */
  async spawnWorker(options: WorkerOptions = {}): Promise<WorkerHandle> {
    const env = {
      ...process.env,
      REDIS_URL: options.url ?? this.redis.url,
      PREFIX: this.prefix,
      ORACLE_DIR: this.dir,
      CONCURRENCY: String(options.concurrency ?? 4),
      MAX_LEASE_REQUEUES: String(options.maxLeaseRequeues ?? 50),
      QUEUE,
      CLOCK_SKEW_MS: String(options.skewMs ?? 0),
      SCHEDULE_LEASE_MS: options.scheduleLeaseMs ? String(options.scheduleLeaseMs) : '',
    };
    const skew = options.skewMs ?? 0;
    const cmd = skew
      ? ['faketime', '-f', `${skew > 0 ? '+' : ''}${skew / 1000}s`, process.execPath, this.workerScript]
      : [process.execPath, this.workerScript];
    const proc = spawnProc(cmd[0]!, cmd.slice(1), { env, stdout: 'pipe' });
    const handle: WorkerHandle = { proc, pid: proc.pid, workerId: '', signalled: false, clockDelta: 0 };
    this.workers.set(proc.pid, handle);
    void proc.exited.then(({ code, signal }) => {
      this.workers.delete(proc.pid);
      if (!handle.signalled && !this.closed)
        this.unexpectedExits.push(`${proc.pid}: code ${code} signal ${signal}`);
    });
    await new Promise<void>((resolve, reject) => {
      let buf = '';
      const timer = setTimeout(() => reject(new Error(`worker ${proc.pid} not ready within 30 s`)), 30_000);
      proc.child.stdout!.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = /READY (\S+) (\d+)\n/.exec(buf);
        if (m && !handle.workerId) {
          handle.workerId = m[1]!;
          handle.clockDelta = Number(m[2]) - Date.now();
          clearTimeout(timer);
          resolve();
        }
      });
      void proc.exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`worker ${proc.pid} exited before it was ready (code ${code}, signal ${signal})`));
      });
    });
    return handle;
  }

  /** Signals one worker's process group; `expectExit`: its exit is the test's doing. */
  signal(w: WorkerHandle, signal: NodeJS.Signals, expectExit = true): void {
    if (expectExit) w.signalled = true;
    w.proc.signal(signal);
  }

  /** Writes a fault the test injected to the oracle (the checker explains duplicates by it). */
  fault(name: string, pid: number | undefined, from: number, to: number): void {
    this.oracle.line('FAULT', name, pid ?? '-', from, to);
  }

  /**
   * Enqueues and logs each acknowledged job (Q id kind key t). A batch Redis refused (BUSY, OOM)
   * is sent again until acknowledged, for at most 60 s: safe only for keyed jobs, which is how
   * the mix enqueues them.
   */
  async enqueue(items: EnqueueItem[]): Promise<string[]> {
    const ids = await this.retrying(() => this.client.enqueueMany(items));
    const t = Date.now();
    ids.forEach((id, i) => {
      const it = items[i]!;
      const machine = typeof it.machine === 'string' ? it.machine : it.machine.name;
      this.oracle.line('Q', id, machine, it.options?.idempotencyKey ?? '-', t);
    });
    return ids;
  }

  /** Sends GO{n} to the job after `delayMs`; logs it once acknowledged (S id n t). */
  sendLater(id: string, n: number, delayMs: number): void {
    this.later(delayMs, async () => {
      await this.client.send(id, { type: 'GO', n }, { eventId: `go-${id}` });
      this.oracle.line('S', id, n, Date.now());
    });
  }

  /** Cancels the job after `delayMs`; logs the acknowledged result (X id result t). */
  cancelLater(id: string, delayMs: number): void {
    this.later(delayMs, async () => {
      this.oracle.line('X', id, 'sent', Date.now());
      const r = await this.client.cancel(id);
      this.oracle.line('X', id, String(r), Date.now());
    });
  }

  /** Calls `fn` until it resolves (60 s at most): a send (one per eventId) and a cancel are safe to repeat. */
  private async retrying<T>(fn: () => Promise<T>): Promise<T> {
    const end = Date.now() + 60_000;
    for (;;) {
      try {
        return await fn();
      } catch (err) {
        if (Date.now() > end) throw err;
        this.oracle.line('NOTE', 'producer-retry', String(err).replace(/\s+/g, '_').slice(0, 200));
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private later(delayMs: number, fn: () => Promise<void>): void {
    const p = new Promise((r) => setTimeout(r, delayMs))
      .then(() => this.retrying(fn))
      .catch((err: unknown) => this.oracle.line('NOTE', 'producer-error', String(err).replace(/\s+/g, '_')))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /**
   * Waits until every scheduled send and cancel was answered and no job is queued, delayed,
   * running or parked (twice in a row, 200 ms apart). False when `timeoutMs` passed first.
   */
  async settle(timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    let quiet = 0;
    while (Date.now() < end) {
      if (this.pending.size === 0) {
        const c = await this.store.counts(QUEUE);
        quiet = c.queued + c.delayed + c.active + c.waiting === 0 ? quiet + 1 : 0;
        if (quiet >= 2) return true;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    return false;
  }

  lines(): OracleLine[] {
    return readOracle(this.dir);
  }

  /** Every acknowledged job's record and audit log, and each fan-out's children (theirs too). */
  async collect(lines: OracleLine[]): Promise<Collected> {
    const got: Collected = { records: new Map(), logs: new Map(), children: new Map() };
    const ids = new Set<string>();
    const fans: string[] = [];
    for (const l of lines)
      if (l.kind === 'Q') {
        ids.add(l.f[0]!);
        if (l.f[1] === 'fan') fans.push(l.f[0]!);
      }
    for (let i = 0; i < fans.length; i += 200) {
      await Promise.all(
        fans.slice(i, i + 200).map(async (id) => {
          const kids = await this.store.childIds(id, QUEUE, 0, 1000);
          got.children.set(id, kids);
          for (const k of kids) ids.add(k);
        }),
      );
    }
    const all = [...ids];
    for (let i = 0; i < all.length; i += 200) {
      await Promise.all(
        all.slice(i, i + 200).map(async (id) => {
          const rec = await this.store.getJob(id, QUEUE);
          got.records.set(id, rec);
          if (rec) got.logs.set(id, await this.store.getLog(id, QUEUE));
        }),
      );
    }
    if (MINIMAL_RECORDS) {
      // The tallies of every minute since the first acknowledged enqueue (oracle time is this
      // machine's clock, Redis's the same host's).
      const first = Math.min(...lines.filter((l) => l.kind === 'Q').map((l) => Number(l.f[3]))) - 60_000;
      const from = Math.floor(first / 60_000);
      const count = Math.floor((await this.store.now()) / 60_000) - from + 1;
      const tallies = await this.store.minuteTallies(QUEUE, from, count);
      got.tallyDone = tallies.reduce((n, t) => n + (t.d ?? 0), 0);
    }
    return got;
  }

  /** Stops everything this test started; keeps the oracle's files when `keep` (a failed test). */
  async close(keep: boolean): Promise<void> {
    this.closed = true;
    await Promise.all([...this.workers.values()].map((w) => w.proc.kill()));
    this.client.close();
    await this.store.close().catch(() => undefined);
    await this.redis.stop();
    this.oracle.close();
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }
}
