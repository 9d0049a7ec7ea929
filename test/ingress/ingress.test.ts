import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { defineJob, type BrokenEntry, type JobRecord } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { partitionOfKey, partitionQueue } from '../../src/store/partitions.js';
import { fixtureEnv, killFixture, spawnFixture } from '../support/spawnFixture.js';

const run = promisify(execFile);

/** A producer that is not Machinist: redis-cli pushing entries as any language would. */
async function redisCliLpush(redis: TestRedis, key: string, entries: string[]): Promise<void> {
  const { port } = redis;
  await run('redis-cli', ['-p', String(port), 'LPUSH', key, ...entries]);
}

describe('ingress list (producers without Machinist)', () => {
  let redis: TestRedis;
  let h: Harness;
  let child: ChildProcess | undefined;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    killFixture(child);
    await h.close();
  });

  const echo = defineJob({
    name: 'echo',
    retry: { maxAttempts: 2 },
    work: ({ input }: { input: unknown }) => input,
  });

  it('runs jobs a redis-cli producer pushed, with their priority, delay, attempts and own id', async () => {
    h = new Harness(redis);
    await h.started({ jobs: [echo] });
    await redisCliLpush(redis, h.key('ingress'), [
      JSON.stringify({ machine: 'echo', input: { n: 1 } }),
      JSON.stringify({ machine: 'echo', input: { n: 2 }, priority: 'high', maxAttempts: 3 }),
      JSON.stringify({ machine: 'echo', input: { n: 3 }, id: 'order-42', delayMs: 50 }),
    ]);
    const client = h.client();
    // The drain makes it soon after the push, not before redis-cli returns: a wait on an id
    // that does not exist yet is JOB_NOT_FOUND.
    await eventually(() => client.get('order-42'), 10_000);
    const rec = await client.waitForResult('order-42', { timeoutMs: 10_000, queue: 'default' });
    assert.deepEqual(rec.output, { n: 3 });
    const jobs = (await eventually(async () => {
      const page = await client.list({ queue: 'default', status: 'done' });
      return page.jobs.length === 3 && page.jobs;
    }, 10_000)) as JobRecord[];
    const byN = new Map(jobs.map((j) => [(j.input as { n: number }).n, j]));
    assert.equal(byN.get(1)?.maxAttempts, 2, "the definition's maxAttempts by default");
    assert.equal(byN.get(2)?.priority, 'high');
    assert.equal(byN.get(2)?.maxAttempts, 3);
    assert.equal(await h.raw.llen(h.key('ingress')), 0, 'the list is emptied');
  });

  it("honours an entry's dedupe: entries with one key make one job, the last debounced input; a bad dedupe is set aside", async () => {
    h = new Harness(redis);
    await h.started({ jobs: [echo] });
    const client = h.client();
    const dedupe = { key: 'doc-7', mode: 'debounce', ttlMs: 60_000 } as const;
    await redisCliLpush(redis, h.key('ingress'), [
      JSON.stringify({ machine: 'echo', input: { n: 1 }, dedupe }),
      JSON.stringify({ machine: 'echo', input: { n: 2 }, dedupe }),
      JSON.stringify({ machine: 'echo', input: { n: 3 }, dedupe: { key: 'k', mode: 'ttl' } }),
    ]);
    await eventually(async () => (await h.raw.llen(h.key('ingress'))) === 0, 10_000);
    const page = await client.list({ queue: 'default', status: 'queued' });
    assert.equal(page.jobs.length, 1);
    assert.deepEqual(page.jobs[0]!.input, { n: 2 });
    assert.ok(
      (await client.events(page.jobs[0]!.id)).some((e) => e.type === 'deduplicated' && e.key === 'doc-7'),
    );
    // The same key from the Client keeps that job too.
    assert.equal(await client.enqueue('echo', { n: 4 }, { dedupe }), page.jobs[0]!.id);
    const broken = await client.broken({ queue: 'default' });
    assert.equal(broken.length, 1);
    assert.match(broken[0]!.reason, /dedupe\.ttlMs/);
  });

  it('makes an entry the same record Client.enqueue makes for the same job', async () => {
    h = new Harness(redis);
    const s = h.supervisor({ jobs: [echo] });
    const client = h.client({ jobs: [echo] });
    const viaClient = await client.enqueue(
      'echo',
      { a: [1, 2.5, 'x'] },
      { priority: 'low', delayMs: 60_000 },
    );
    await redisCliLpush(redis, h.key('ingress'), [
      JSON.stringify({
        machine: 'echo',
        input: { a: [1, 2.5, 'x'] },
        priority: 'low',
        delayMs: 60_000,
        id: 'mine',
      }),
    ]);
    await s.start();
    await eventually(async () => (await h.raw.llen(h.key('ingress'))) === 0, 10_000);
    const a = await h.raw.hgetall(h.key(`job:${viaClient}`));
    const b = await h.raw.hgetall(h.key('job:mine'));
    // Times and places in line differ by nature; everything else is the same record.
    for (const r of [a, b]) {
      for (const f of ['ca', 'qs', 'ra', 'l1']) {
        assert.ok(r[f], `field ${f} is set`);
        delete r[f];
      }
    }
    assert.deepEqual(b, a);
  });

  it('sets aside undecodable and invalid entries with their reason and raw text, and runs the rest', async () => {
    h = new Harness(redis);
    await h.started({ jobs: [echo] });
    const bad = [
      'not json {',
      '[1,2]',
      JSON.stringify({ input: 1 }),
      JSON.stringify({ machine: 'nope', input: 1 }),
      JSON.stringify({ machine: 'echo', input: 1, priorty: 'high' }),
      JSON.stringify({ machine: 'echo', input: 1, priority: 'urgent' }),
      JSON.stringify({ machine: 'echo' }),
      JSON.stringify({ machine: 'echo', input: 1, id: 'a,b' }),
    ];
    await redisCliLpush(redis, h.key('ingress'), [
      JSON.stringify({ machine: 'echo', input: 'first' }),
      ...bad,
      JSON.stringify({ machine: 'echo', input: 'last' }),
    ]);
    const client = h.client();
    const broken = (await eventually(async () => {
      const b = await client.broken({ limit: 100 });
      return b.length === bad.length && b;
    }, 10_000)) as BrokenEntry[];
    const byRaw = new Map(broken.map((b) => [b.raw, b.reason]));
    assert.match(byRaw.get('not json {')!, /^INGRESS_UNDECODABLE/);
    assert.match(byRaw.get('[1,2]')!, /must be a JSON object/);
    assert.match(byRaw.get(bad[2])!, /'machine'/);
    assert.match(byRaw.get(bad[3])!, /^UNKNOWN_MACHINE.*'nope'/);
    assert.match(byRaw.get(bad[4])!, /unknown field 'priorty'/);
    assert.match(byRaw.get(bad[5])!, /priority/);
    assert.match(byRaw.get(bad[6])!, /'input' is missing/);
    assert.match(byRaw.get(bad[7])!, /'id'/);
    const done = (await eventually(async () => {
      const page = await client.list({ queue: 'default', status: 'done' });
      return page.jobs.length === 2 && page.jobs;
    }, 10_000)) as JobRecord[];
    assert.deepEqual(done.map((j) => j.output).sort(), ['first', 'last']);
    assert.equal(await h.raw.llen(h.key('ingress')), 0);
  });

  it("takes an entry with an existing job's id once: a producer may push it again safely", async () => {
    h = new Harness(redis);
    await h.started({ jobs: [echo] });
    const entry = JSON.stringify({ machine: 'echo', input: 7, id: 'same' });
    await redisCliLpush(redis, h.key('ingress'), [entry]);
    const client = h.client();
    await eventually(() => client.get('same'), 10_000); // drained soon after the push, not at once
    await client.waitForResult('same', { timeoutMs: 10_000, queue: 'default' });
    await redisCliLpush(redis, h.key('ingress'), [entry]);
    await eventually(async () => (await h.raw.llen(h.key('ingress'))) === 0, 10_000);
    const log = await client.events('same');
    assert.equal(log.filter((e) => e.type === 'enqueued').length, 1);
    assert.equal((await client.get('same'))?.status, 'done');
  });

  it("sets aside an entry whose id names another machine's job, naming the conflict, and leaves that job alone", async () => {
    h = new Harness(redis);
    const other = defineJob({ name: 'other', work: () => 'other ran' });
    await h.started({ jobs: [echo, other] });
    const client = h.client();
    await redisCliLpush(redis, h.key('ingress'), [
      JSON.stringify({ machine: 'echo', input: 7, id: 'taken' }),
    ]);
    await eventually(() => client.get('taken'), 10_000);
    await client.waitForResult('taken', { timeoutMs: 10_000, queue: 'default' });
    // Another producer picks the same id for another machine: once in a batch of its own, and
    // once in the same batch as the job it collides with.
    const clash = JSON.stringify({ machine: 'other', input: 1, id: 'taken' });
    const firstInBatch = JSON.stringify({ machine: 'echo', input: 8, id: 'fresh' });
    const clashInBatch = JSON.stringify({ machine: 'other', input: 2, id: 'fresh' });
    await redisCliLpush(redis, h.key('ingress'), [clash]);
    await redisCliLpush(redis, h.key('ingress'), [firstInBatch, clashInBatch]);
    const broken = (await eventually(async () => {
      const b = await client.broken({ limit: 100 });
      return b.length === 2 && b;
    }, 10_000)) as BrokenEntry[];
    const byRaw = new Map(broken.map((b) => [b.raw, b]));
    assert.match(byRaw.get(clash)!.reason, /^ID_CONFLICT: .*'taken'.*'echo'/);
    assert.match(byRaw.get(clashInBatch)!.reason, /^ID_CONFLICT: .*'fresh'.*'echo'/);
    for (const b of broken) assert.notEqual(b.id, 'taken', 'set aside under a new id');
    const taken = await client.get('taken');
    assert.equal(taken?.machine, 'echo');
    assert.equal(taken?.status, 'done');
    assert.equal((await client.events('taken')).filter((e) => e.type === 'enqueued').length, 1);
    const fresh = await client.waitForResult('fresh', { timeoutMs: 10_000, queue: 'default' });
    assert.equal(fresh.machine, 'echo');
    assert.equal(fresh.output, 8);
  });

  it("takes a partitionKey entry on its partition's list only, and makes ids the client finds by the queue name", async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [echo] });
    await client.configureQueue('pq', { partitions: 3 });
    await h.started({ jobs: [echo], queues: ['pq'] });
    const k = partitionOfKey('cust-1', 3);
    const elsewhere = (k + 1) % 3;
    const entry = (fields: Record<string, unknown>) =>
      JSON.stringify({ machine: 'echo', input: fields, ...fields });
    const list = (queue: string) => h.key('ingress', queue);
    const ownId = `${k}~order-1`;
    await h.raw.lpush(list(partitionQueue('pq', k)), entry({ partitionKey: 'cust-1' }), entry({ id: ownId }));
    await h.raw.lpush(
      list('pq'),
      entry({ partitionKey: 'cust-1' }),
      entry({ id: 'plain-1' }),
      entry({ id: ownId }),
    );
    await h.raw.lpush(list(partitionQueue('pq', elsewhere)), entry({ partitionKey: 'cust-1' }));
    await eventually(
      async () => (await client.list({ queue: 'pq', status: 'done' })).jobs.length === 3,
      10_000,
    );
    const done = (await client.list({ queue: 'pq', status: 'done' })).jobs;
    // On the key's partition: an id naming it, found by the queue's name with no lookup.
    const keyed = done.find((j) => (j.input as { partitionKey?: string }).partitionKey)!;
    assert.equal(keyed.queue, partitionQueue('pq', k));
    assert.match(keyed.id, new RegExp(`^${k}~`));
    assert.equal((await client.get(ownId, { queue: 'pq' }))?.queue, partitionQueue('pq', k));
    // On the queue's own list, an id of the producer's own: made there, found there.
    assert.equal((await client.get('plain-1', { queue: 'pq' }))?.queue, 'pq');
    // Pushed elsewhere: set aside, the reason naming the list to push to.
    const own = (await eventually(async () => {
      const b = await client.broken({ queue: 'pq' });
      return b.length === 2 && b;
    }, 10_000)) as BrokenEntry[];
    const reasons = own.map((b) => b.reason).sort();
    assert.match(reasons[0]!, new RegExp(`^INGRESS_INVALID: id '${k}~order-1' names partition ${k}`));
    assert.match(
      reasons[1]!,
      new RegExp(`partitionKey 'cust-1' belongs to partition ${k} .*\\{pq#${k}\\}:ingress`),
    );
    const wrong = (await eventually(async () => {
      const b = await client.broken({ queue: partitionQueue('pq', elsewhere) });
      return b.length === 1 && b;
    }, 10_000)) as BrokenEntry[];
    assert.match(wrong[0]!.reason, /^INGRESS_INVALID: partitionKey 'cust-1' belongs to partition/);
  });

  it('makes every entry exactly one job when a supervisor is SIGKILLed mid-drain', async () => {
    h = new Harness(redis);
    const N = 30_000;
    const key = h.key('ingress');
    for (let s = 0; s < N; s += 5000) {
      const chunk = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ machine: 'noop', input: s + i }));
      await h.raw.lpush(key, ...chunk);
    }
    child = spawnFixture('ingressWorker.ts', fixtureEnv(redis, h.prefix)).child;
    // Killed once it has moved some entries and not all.
    await eventually(async () => (await h.raw.llen(key)) < N - 500, 30_000, 5);
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const left = await h.raw.llen(key);
    assert.ok(left > 0, `the kill came mid-drain (${left} entries left)`);
    const countJobs = async () => {
      const inputs: string[] = [];
      let cursor = '0';
      do {
        const [next, keys] = await h.raw.scan(cursor, 'MATCH', h.key('job:*'), 'COUNT', 5000);
        cursor = next;
        if (keys.length) {
          const p = h.raw.pipeline();
          for (const k of keys) p.hget(k, 'in');
          for (const [, v] of (await p.exec())!) inputs.push(v as string);
        }
      } while (cursor !== '0');
      return inputs;
    };
    assert.equal((await countJobs()).length + left, N, 'no entry lost or doubled by the kill');
    await h.started({ jobs: [defineJob({ name: 'noop', work: () => null })] });
    await eventually(async () => (await h.raw.llen(key)) === 0, 60_000, 50);
    const inputs = await countJobs();
    assert.equal(inputs.length, N);
    assert.equal(new Set(inputs).size, N, 'each entry became one job');
    assert.equal((await h.store.counts('default')).broken, 0);
  });
});
