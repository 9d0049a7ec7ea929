import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Client, RedisStore, Supervisor, defineJob, type RedisUnavailableError } from '../../src/index.js';
import { reachable } from '../../examples/privateRedis.js';
import { eventually, sleep, uniquePrefix } from '../support/redis.js';
import { gate } from '../support/harness.js';

// These stop and restart their own redis-server on a fixed port and directory (its data kept
// across the restart by SHUTDOWN SAVE), so they cannot run against REDIS_URL.
const skip = process.env.REDIS_URL ? 'needs private redis-servers' : false;

const TIMEOUT_MS = 1000;
/** Generous on a shared 2-core machine: the bound, three times over. */
const BOUND_MS = 3 * TIMEOUT_MS;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/** A redis-server on `port` keeping its data in `dir`, so that a restart finds it again. */
async function serverAt(port: number, dir: string): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
  ];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  process.once('exit', () => child.kill('SIGKILL'));
  await eventually(() => reachable(`redis://127.0.0.1:${port}`, 200), 5000, 50);
  return child;
}

async function shutdown(port: number, child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  const ctl = new Redis({ port, maxRetriesPerRequest: 0, retryStrategy: () => null });
  ctl.on('error', () => {});
  await ctl.shutdown('SAVE').catch(() => undefined); // the reply never comes: the server is gone
  ctl.disconnect();
  await exited;
}

/** How a call settled within `ms`: its error, its value, or still pending. */
async function within(p: Promise<unknown>, ms: number) {
  const t0 = Date.now();
  const pending = 'pending' as const;
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([
    p.then(
      (value) => ({ value }),
      (error: unknown) => ({ error: error as RedisUnavailableError }),
    ),
    new Promise<typeof pending>((res) => (timer = setTimeout(() => res(pending), ms))),
  ]);
  clearTimeout(timer);
  return { r, ms: Date.now() - t0, pending };
}

async function assertUnavailable(name: string, p: Promise<unknown>, address: string) {
  const { r, ms, pending } = await within(p, BOUND_MS + 2000);
  assert.notEqual(r, pending, `${name}: still pending after ${ms} ms`);
  assert.ok(r !== pending && 'error' in r, `${name}: resolved instead of rejecting`);
  const err = r.error;
  assert.equal(err.code, 'REDIS_UNAVAILABLE', `${name}: ${String(err)}`);
  assert.equal(err.address, address, name);
  assert.ok(err.message.includes(address), `${name}: the message names ${address}: ${err.message}`);
  assert.ok(ms < BOUND_MS, `${name}: rejected after ${ms} ms (bound ${TIMEOUT_MS} ms)`);
  return err;
}

describe('a client whose Redis is unreachable', { skip }, () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  const echo = defineJob({ name: 'echo', work: ({ input }) => input });

  it(
    'rejects each call with REDIS_UNAVAILABLE naming the address when nothing listens',
    { timeout: 30_000 },
    async () => {
      const port = await freePort();
      const address = `127.0.0.1:${port}`;
      const store = new RedisStore({
        url: `redis://${address}`,
        prefix: uniquePrefix(),
        commandTimeoutMs: TIMEOUT_MS,
      });
      const client = new Client({ store, jobs: [echo] });
      try {
        const calls: [string, () => Promise<unknown>][] = [
          ['enqueue', () => client.enqueue('echo', 1)],
          ['enqueueMany', () => client.enqueueMany([{ machine: 'echo', input: 2 }])],
          ['get', () => client.get('01JOB')],
          ['cancel', () => client.cancel('01JOB')],
          ['send', () => client.send('01JOB', { type: 'GO' })],
          ['waitForResult', () => client.waitForResult('01JOB', { timeoutMs: 30_000 })],
          [
            'waitForResult on a queue',
            () => client.waitForResult('01JOB', { queue: 'default', timeoutMs: 30_000 }),
          ],
        ];
        await Promise.all(calls.map(([name, call]) => assertUnavailable(name, call(), address)));
      } finally {
        client.close();
        await store.close();
      }
    },
  );

  it(
    'rejects calls within the bound while its Redis is stopped, writes nothing late, and a running supervisor finishes the jobs once Redis is back',
    { timeout: 60_000 },
    async () => {
      const port = await freePort();
      const address = `127.0.0.1:${port}`;
      const dir = mkdtempSync(join(tmpdir(), 'machinist-unreachable-'));
      dirs.push(dir);
      let server = await serverAt(port, dir);
      const lines: { level: number; msg: string }[] = [];
      const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
      const store = new RedisStore({
        url: `redis://${address}`,
        prefix: uniquePrefix(),
        commandTimeoutMs: TIMEOUT_MS,
      });
      const release = gate();
      const held = defineJob({ name: 'held', work: async ({ input }) => (await release.promise, input) });
      const client = new Client({ store, jobs: [held] });
      const sup = new Supervisor({
        store,
        jobs: [held],
        logger,
        concurrency: 2,
        leaseMs: 20_000,
        heartbeatMs: 200,
        reaperIntervalMs: 200,
      });
      try {
        await sup.start();
        const ids = await client.enqueueMany(
          Array.from({ length: 6 }, (_, i) => ({ machine: 'held', input: i })),
        );
        await eventually(async () => (await client.get(ids[0]!))?.status === 'working');
        let waitSettled = 0;
        const waiting = client.waitForResult(ids[0]!, { queue: 'default', timeoutMs: 60_000 }).then(
          () => 'resolved',
          (err: RedisUnavailableError) => ((waitSettled = Date.now()), err),
        );
        await sleep(100); // the wait is registered and its reader blocked

        await shutdown(port, server);
        const stoppedAt = Date.now();
        const [lost] = await Promise.all([
          assertUnavailable('enqueue', client.enqueue('held', 'late'), address),
          assertUnavailable('get', client.get(ids[1]!), address),
          assertUnavailable('cancel', client.cancel(ids[2]!, { queue: 'default' }), address),
          assertUnavailable('send', client.send(ids[3]!, { type: 'GO' }), address),
        ]);
        assert.equal(lost.maybeApplied, false);
        // The wait that began while Redis was up learns of the outage too, within the bound.
        const w = await waiting;
        assert.ok(typeof w !== 'string', 'the running wait rejected');
        assert.equal(w.code, 'REDIS_UNAVAILABLE');
        assert.ok(waitSettled - stoppedAt < BOUND_MS, `the wait settled ${waitSettled - stoppedAt} ms after`);

        server = await serverAt(port, dir);
        // The client's connection reconnects on its own (attempts at most 500 ms apart).
        await eventually(() => client.get(ids[0]!).then(Boolean, () => false), 10_000);
        release.open();
        for (const id of ids) {
          const rec = await client.waitForResult(id, { queue: 'default', timeoutMs: 20_000 });
          assert.equal(rec.status, 'done', id);
        }
        // The enqueue that gave up was never sent: it does not land now that Redis is back.
        assert.equal(await client.get(lost.jobId!), null);
        assert.equal((await store.counts('default')).queued, 0);

        const warned = lines.filter((l) => l.level === 40 && /unreachable/.test(l.msg));
        const back = lines.filter((l) => l.level === 30 && /reachable again/.test(l.msg));
        assert.equal(warned.length, 1, `one warning for the outage: ${JSON.stringify(lines)}`);
        assert.ok(warned[0]!.msg.includes(address), warned[0]!.msg);
        assert.equal(back.length, 1, `one line when it is back: ${JSON.stringify(lines)}`);
      } finally {
        release.open();
        await sup.stop({ graceMs: 1000 });
        client.close();
        await store.close();
        server.kill('SIGKILL');
      }
    },
  );
});
