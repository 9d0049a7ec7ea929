// The compact checkpoint and done (lua/include/lcCompactOp.lua) are a second path for lcMove's
// checkpoint and done, kept for speed. Both run here on the same kinds of jobs: the compact forms
// as the encoder sends them, the general ones as it sent them before (kind, id, token, every
// field of COMMIT_OP_FIELDS, version ''). They must leave the same record, indexes, audit log,
// stream entries, tallies and dedupe keys, and refuse the same ops. The jobs the compact path
// leaves to the general one (a watcher, a parent, an inbox, a status change, a second op of a
// job in one call, a minimal record) are here too.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CommitOp, NewJob } from '../../src/store/types.js';
import { encodeOps } from '../../src/store/redis/encodeOps.js';
import { COMMIT_COMPACT_RUN, COMMIT_OP_FIELDS } from '../../src/store/redis/commitOpFields.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { rawCommit } from '../support/rawCommit.js';
import { newJob } from '../support/claimOps.js';

/** `op` as the general form carries it: its kind, id, token, every field ('' when not set). */
function general(op: CommitOp): (string | number)[] {
  const values = op as unknown as Record<string, unknown>;
  const out: (string | number)[] = [op.kind, op.id, op.token];
  for (const f of COMMIT_OP_FIELDS[op.kind] as readonly string[]) {
    const v = values[f];
    if (f === 'log') out.push((v as string[]).length, ...(v as string[]));
    else out.push(v === undefined ? '' : (v as string | number));
  }
  return out;
}

type Step = (id: string, token: string) => CommitOp[];

const checkpoint =
  (state: string, log: string[], extra: Partial<CommitOp> = {}): Step =>
  (id, token) => [
    {
      kind: 'checkpoint',
      id,
      token,
      status: 'working',
      snapshot: `{"value":${state}}`,
      state,
      inboxConsumed: 0,
      log,
      ...extra,
    } as CommitOp,
  ];
const done =
  (log: string[] = ['{"type":"state","state":"end"}', '{"type":"done"}'], state = '"end"'): Step =>
  (id, token) => [{ kind: 'done', id, token, output: '{"ok":1}', snapshot: '', state, log }];
const STEPS: Step[] = [
  checkpoint('"one"', ['{"type":"started"}', '{"type":"state","context":{},"state":"one"}']),
  checkpoint('"two"', ['{"type":"state","state":"two"}'], { progress: '50' }),
  done(),
];

// Both ways the scripts run (RedisStoreOptions.scripts): the library, and EVALSHA, where each call
// builds the constants it names (COMMIT_COMPACT among them).
for (const scripts of ['functions', 'eval'] as const)
  describe(`the compact checkpoint and done against the general ones (scripts: ${scripts})`, () => {
    let redis: TestRedis;
    let h: Harness;
    before(async () => (redis = await startRedis()));
    after(async () => redis.stop());
    afterEach(async () => h.close());

    /** Commits `ops` in one call, in the compact forms (the encoder's) or the general ones. */
    async function commit(ops: CommitOp[], compact: boolean): Promise<number[]> {
      const wire = compact ? encodeOps(ops) : ops.flatMap(general);
      // Compact: alone (its letter before its id) or in a run; no op in the general form.
      if (compact)
        assert.ok(
          !wire.some((v) => typeof v === 'string' && Object.hasOwn(COMMIT_OP_FIELDS, v)),
          'the encoder sends them compact',
        );
      return rawCommit(h, wire, ops.length);
    }

    /** What a job leaves: its record (without times and tokens), indexes, log, stream entries. */
    async function trace(id: string) {
      const rec = await h.raw.hgetall(h.key(`job:${id}`));
      for (const f of ['ca', 'ct', 'fa', 'ua', 'par']) delete rec[f];
      // A lease's token and a place in line differ from job to job: whether each is there (and
      // a done's empty token) is compared.
      if (rec.tk) rec.tk = '<token>';
      if (rec.qs) rec.qs = '<place>';
      for (const f of Object.keys(rec)) if (/^l\d+$/.test(f)) rec[f] = rec[f]!.replace(/^\d+ /, '');
      const indexes: string[] = [];
      for (const n of ['queued', 'delayed', 'active', 'waiting', 'done', 'failed', 'cancelled', 'dead'])
        if ((await h.raw.zscore(h.key(n), id)) !== null) indexes.push(n);
      // (A minimal record ended done is gone, its log with it.)
      const log = (await h.store.getLog(id).catch(() => [])).map(({ at: _at, ...e }) => e);
      const stream = (await h.store.readEvents('default', '0', 0, 10_000))
        .filter((e) => e.jobId === id)
        .map((e) => `${e.type}/${e.status}`);
      return { rec, indexes, log, stream };
    }

    /**
     * The queue's minute tallies (summed over its minutes: the two runs may straddle one): the
     * counts by status, and how many waits and runs were counted (their buckets are times).
     */
    async function tallies(): Promise<Record<string, number>> {
      const sum: Record<string, number> = {};
      for (const key of await h.raw.keys(h.key('series:*')))
        for (const [f, v] of Object.entries(await h.raw.hgetall(key))) {
          const k = /^[wr]\d+$/.test(f) ? f[0]! : f;
          sum[k] = (sum[k] ?? 0) + Number(v);
        }
      return sum;
    }

    interface Case {
      /** Once, before the runs (the queue's settings). */
      setup?: () => Promise<unknown>;
      /** Made before the run (a fresh job each run: `n` tells them apart). */
      jobs?: (n: number) => NewJob[];
      /** Before the steps, once the job is claimed. */
      prepare?: (id: string) => Promise<unknown>;
      steps?: Step[];
      /** Claimed in the load phase (status loading). */
      loading?: boolean;
      /** What each step writes (default: 1 each). */
      written?: number[];
    }

    /** Runs `c` once each way and requires the same traces; returns the compact run's. */
    async function same(c: Case) {
      h = new Harness(redis, { scripts });
      await c.setup?.();
      const runs = [];
      for (const [n, compact] of [true, false].entries()) {
        const id = `01JCOMPACT${n}000000000000000`;
        await h.store.enqueue('default', c.jobs?.(n) ?? [newJob(id)]);
        const { claimed } = await h.store.commit('default', [], {
          workerId: 'w',
          max: 1,
          leaseMs: 30_000,
          loadMachines: c.loading ? ['j'] : [],
        });
        const token = claimed[0]!.token;
        const jobId = claimed[0]!.id;
        const before = await tallies();
        await c.prepare?.(jobId);
        const written = [];
        for (const step of c.steps ?? STEPS) written.push(...(await commit(step(jobId, token), compact)));
        assert.deepEqual(written, c.written ?? (c.steps ?? STEPS).map(() => 1), 'what each op wrote');
        const after = await tallies();
        const added = Object.fromEntries(Object.entries(after).map(([f, v]) => [f, v - (before[f] ?? 0)]));
        runs.push({ ...(await trace(jobId)), added, id: jobId });
      }
      const [a, b] = runs.map(({ id: _id, ...t }) => t);
      assert.deepEqual(a, b);
      return runs[0]!;
    }

    it('leaves the same traces for a job with an implicit log', async () => {
      const t = await same({});
      assert.deepEqual(t.indexes, ['done']);
      assert.deepEqual(
        t.log.map((e) => e.type),
        ['enqueued', 'claimed', 'started', 'state', 'state', 'state', 'done'],
      );
      assert.deepEqual(t.stream, [
        'enqueued/queued',
        'claimed/working',
        'checkpoint/working',
        'checkpoint/working',
        'done/done',
      ]);
      assert.equal(t.rec.ls, '7');
      assert.equal(t.added.d, 1);
    });

    it('leaves the same traces for a done whose log stays implicit (a state, only its "done")', async () => {
      const t = await same({ steps: [done(['{"type":"done"}'])] });
      assert.equal(t.rec.ls, undefined, 'no log written');
      assert.equal(t.rec.s, '"end"');
    });

    it('leaves the same traces for a checkpoint with an empty log, which writes out the implicit one', async () => {
      const t = await same({ steps: [checkpoint('"one"', []), done(['{"type":"done"}'])] });
      assert.equal(t.rec.ls, '3');
    });

    it('leaves the same traces for a job with an audit log and an inbox of its own', async () => {
      // The event sent makes `ls` and `ib`: the checkpoints go the compact way, the done the general one.
      await same({ prepare: (id) => h.store.send(id, 'default', '{"type":"X"}', 'X', `e-${id}`) });
    });

    it('leaves the same traces for a job someone waits for (its done goes the general way)', async () => {
      await same({ prepare: (id) => h.store.watchJob(id, 'default', `w-${id}`) });
    });

    it('leaves the same traces for a job whose lease was requeued (its count starts over)', async () => {
      const t = await same({
        prepare: (id) => h.raw.hset(h.key(`job:${id}`), 'lr', '1'),
        steps: [STEPS[0]!],
      });
      assert.equal(t.rec.lr, undefined);
    });

    it('leaves the same traces for a job whose log is full (the oldest entry falls out)', async () => {
      const t = await same({
        prepare: (id) => h.raw.hset(h.key(`job:${id}`), 'ls', '1000', 'l1', '1 first', 'l2', '2 second'),
      });
      assert.equal(t.rec.ls, '1005');
      assert.equal(t.rec.l1, undefined);
      assert.equal(t.rec.l2, undefined);
    });

    it('leaves the same traces for a job in its load phase (the status change goes the general way)', async () => {
      const t = await same({ loading: true });
      assert.deepEqual(t.stream, [
        'enqueued/queued',
        'claimed/loading',
        'checkpoint/working',
        'checkpoint/working',
        'done/done',
      ]);
    });

    it('leaves the same traces for a checkpoint of a loading job that keeps it loading', async () => {
      await same({
        loading: true,
        steps: [checkpoint('"one"', ['{"type":"loading"}'], { status: 'loading' }), done()],
      });
    });

    it('leaves the same traces for three ops of one job in one call, its stream entries in order', async () => {
      const t = await same({
        steps: [(id, token) => [...STEPS[0]!(id, token), ...STEPS[1]!(id, token), ...done()(id, token)]],
        written: [1, 1, 1],
      });
      assert.deepEqual(t.indexes, ['done']);
    });

    it('refuses the same ops from a worker whose lease is lost, and a second done', async () => {
      const lost: Step[] = [
        (id) => checkpoint('"one"', [])(id, 'lost'),
        (id) => done()(id, 'lost'),
        (id) => done()(id, ''),
        STEPS[0]!,
        done(),
        done(),
        STEPS[1]!,
      ];
      const t = await same({ steps: lost, written: [0, 0, 0, 1, 1, 0, 0] });
      assert.deepEqual(t.indexes, ['done']);
    });

    it('refuses the same ops for a job that is not there', async () => {
      await same({
        steps: [
          (_id, token) => checkpoint('"one"', [])('nope', token),
          (_id, token) => done()('nope', token),
        ],
        written: [0, 0],
      });
    });

    it('leaves the same traces for a job with a concurrency key, and frees its slot', async () => {
      const t = await same({
        setup: () => h.store.setQueueFlow('default', { perKey: 1 }),
        jobs: (n) => [newJob(`01JCOMPACTKEY${n}00000000000`, { concurrencyKey: 'k' })],
        prepare: async () => assert.equal(await h.raw.scard(h.key('ck:k')), 1, 'its slot is held'),
      });
      assert.equal(t.rec.ck, 'k');
      assert.equal(await h.raw.scard(h.key('ck:k')), 0, 'no slot held');
    });

    it('leaves the same traces for a job made under a dedupe key, and frees the key', async () => {
      const t = await same({
        jobs: (n) => [newJob(`01JCOMPACTDD${n}000000000000`, { dedupe: { key: 'd', mode: 'untilDone' } })],
      });
      assert.equal(await h.raw.exists(h.key('dd:d')), 0, 'the dedupe key is freed');
      assert.equal(t.indexes[0], 'done');
    });

    it('leaves the same traces for a minimal record (the general way)', async () => {
      const t = await same({ jobs: (n) => [newJob(`01JCOMPACTMIN${n}00000000000`, { minimal: true })] });
      assert.deepEqual(t.indexes, []);
      assert.deepEqual(t.stream, []);
    });

    it('leaves the same traces for jobs of one call that share their values, some of them the general way', async () => {
      h = new Harness(redis, { scripts });
      const runs = [];
      for (const [n, compact] of [true, false].entries()) {
        const ids = [0, 1, 2].map((k) => `01JCSHARED${n}${k}00000000000000`);
        await h.store.enqueue(
          'default',
          ids.map((id) => newJob(id)),
        );
        const claimed = await h.claimAs('w', { max: 3 });
        // The second job has a watcher: its done goes the general way, on values it shares.
        await h.store.watchJob(claimed[1]!.id, 'default', `w-${n}`);
        for (const step of STEPS) {
          const ops = claimed.flatMap((c) => step(c.id, c.token));
          // The three share their values: one run (COMMIT_COMPACT_RUN) of them.
          if (compact)
            assert.deepEqual(encodeOps(ops).slice(0, 3), [
              COMMIT_COMPACT_RUN,
              ops[0]!.kind === 'done' ? 'S' : 'C',
              3,
            ]);
          assert.deepEqual(await commit(ops, compact), [1, 1, 1]);
        }
        runs.push(await Promise.all(claimed.map((c) => trace(c.id))));
      }
      assert.deepEqual(runs[0], runs[1]);
      assert.deepEqual(
        runs[0]!.map((t) => t.indexes),
        [['done'], ['done'], ['done']],
      );
    });

    it('leaves the same traces for jobs of one call that share their values, their logs at different positions', async () => {
      // The ops of a run share the HSET's values after their own one, made once per log position
      // (THE SHARED TAIL, lcCompactOp.lua): jobs whose logs are at different positions in one run
      // (implicit, written out, one with an entry falling out) each get their own.
      h = new Harness(redis, { scripts });
      const runs = [];
      for (const [n, compact] of [true, false].entries()) {
        const ids = [0, 1, 2, 3].map((k) => `01JCPOSITION${n}${k}000000000000`);
        await h.store.enqueue(
          'default',
          ids.map((id) => newJob(id)),
        );
        const claimed = await h.claimAs('w', { max: 4 });
        const logAt = ['', '3', '5', '1000'];
        for (const [k, c] of claimed.entries())
          if (logAt[k])
            await h.raw.hset(h.key(`job:${c.id}`), 'ls', logAt[k], 'l1', '1 first', 'l2', '2 second');
        for (const step of [STEPS[1]!, done()]) {
          const ops = claimed.flatMap((c) => step(c.id, c.token));
          if (compact) assert.equal(encodeOps(ops)[0], COMMIT_COMPACT_RUN, 'one run');
          assert.deepEqual(await commit(ops, compact), [1, 1, 1, 1]);
        }
        runs.push(await Promise.all(claimed.map((c) => trace(c.id))));
      }
      assert.deepEqual(runs[0], runs[1]);
      assert.deepEqual(
        runs[0]!.map((t) => t.rec.ls),
        ['5', '6', '8', '1003'],
      );
    });

    it('leaves the same stream, in order, for dones held the lean way between other moves of one call', async () => {
      // THE LEAN DONE holds its jobs' index writes and stream entries (THE HELD DONES, lcBatch.lua)
      // until the next move is told: a plain done, a done the general way and a second done of a
      // held job come after them here, as they came after them op by op.
      h = new Harness(redis, { scripts });
      const runs = [];
      for (const [n, compact] of [true, false].entries()) {
        const ids = [0, 1, 2, 3, 4].map((k) => `01JCHELD${n}${k}0000000000000000`);
        await h.store.enqueue(
          'default',
          ids.map((id) => newJob(id)),
        );
        const claimed = await h.claimAs('w', { max: 5 });
        const [a, b, c, d, e] = claimed;
        await h.store.watchJob(e!.id, 'default', `w-${n}`);
        // Their logs written out (the lean done takes a job whose log is).
        await commit(
          claimed.flatMap((j) => STEPS[0]!(j.id, j.token)),
          compact,
        );
        const since = (await h.store.readEvents('default', '0', 0, 10_000)).length;
        const before = await tallies();
        const ops: CommitOp[] = [
          ...[a!, b!, c!].flatMap((j) => done()(j.id, j.token)),
          {
            kind: 'done',
            id: d!.id,
            token: d!.token,
            output: '{"ok":1}',
            snapshot: '',
            log: ['{"type":"done"}'],
          },
          ...done()(e!.id, e!.token),
          ...done()(b!.id, b!.token),
        ];
        assert.deepEqual(await commit(ops, compact), [1, 1, 1, 1, 1, 0]);
        const after = await tallies();
        const added = Object.fromEntries(Object.entries(after).map(([f, v]) => [f, v - (before[f] ?? 0)]));
        const order = claimed.map((j) => j.id);
        const stream = (await h.store.readEvents('default', '0', 0, 10_000))
          .slice(since)
          .map((ev) => `${order.indexOf(ev.jobId)}:${ev.type}/${ev.status}`);
        runs.push({ stream, added, traces: await Promise.all(claimed.map((j) => trace(j.id))) });
      }
      assert.deepEqual(runs[0], runs[1]);
      assert.deepEqual(runs[0]!.stream, [
        '0:done/done',
        '1:done/done',
        '2:done/done',
        '3:done/done',
        '4:done/done',
      ]);
      assert.equal(runs[0]!.added.d, 5, 'each done counted once');
    });

    it('leaves the same traces for every step of three jobs in one call, interleaved', async () => {
      h = new Harness(redis, { scripts });
      const runs = [];
      for (const [n, compact] of [true, false].entries()) {
        const ids = [0, 1, 2].map((k) => `01JCSTEPS${n}${k}000000000000000`);
        await h.store.enqueue(
          'default',
          ids.map((id) => newJob(id)),
        );
        const claimed = await h.claimAs('w', { max: 3 });
        const ops = STEPS.flatMap((step) => claimed.flatMap((c) => step(c.id, c.token)));
        assert.deepEqual(
          await commit(ops, compact),
          ops.map(() => 1),
        );
        runs.push(await Promise.all(claimed.map((c) => trace(c.id))));
      }
      assert.deepEqual(runs[0], runs[1]);
      assert.deepEqual(runs[0]![0]!.stream, [
        'enqueued/queued',
        'claimed/working',
        'checkpoint/working',
        'checkpoint/working',
        'done/done',
      ]);
    });

    it('leaves the same traces for a child, and tells its parent the same outcome', async () => {
      h = new Harness(redis, { scripts });
      const outcomes = [];
      for (const compact of [true, false]) {
        const parent = compact ? '01JCPARENTA000000000000000' : '01JCPARENTB000000000000000';
        await h.store.enqueue('default', [newJob(parent)]);
        await h.claimAs();
        await h.store.fanOpen(parent, 'default', 'g', 1, 'collect');
        const child = `${parent}.g.0`;
        await h.store.enqueue('default', [
          newJob(child, { parentId: parent, parentQueue: '', group: 'g', index: 0 }),
        ]);
        const token = (await h.claimAs())[0]!.token;
        for (const step of STEPS) assert.deepEqual(await commit(step(child, token), compact), [1]);
        const fan = await h.store.fanOpen(parent, 'default', 'g', 1, 'collect');
        outcomes.push({ trace: await trace(child), finished: fan.finished, result: fan.results.get(0) });
      }
      assert.deepEqual(outcomes[0], outcomes[1]);
      assert.equal(outcomes[0]!.result, '{"s":"done","o":{"ok":1}}');
    });
  });
