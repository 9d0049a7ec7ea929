// Pipelines across deployments: a job stored by one version of its machine, run by workers that
// have another. A job keeps its version; a newer definition with `migrate` takes it over.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup, type AnyStateMachine } from 'xstate';
import { definePipeline, step, type Client, type PipelineTimer } from '../../src/index.js';
import type { ClaimRequest, CommitOp } from '../../src/store/types.js';
import { Harness } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';

describe('pipelines across redeploys', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  const waitV1 = () =>
    setup({}).createMachine({
      initial: 'wait',
      states: { wait: { on: { GO: 'end' } }, end: { type: 'final' } },
      output: () => 'v1',
    });

  it('fails a job whose stored version is not registered, with the reason, and keeps serving others', async () => {
    const h = new Harness(redis);
    try {
      const v1 = definePipeline({ name: 'ver', version: 1, machine: waitV1() });
      const sup1 = await h.started({ jobs: [v1] });
      const client = h.client({ jobs: [v1] });
      const id = await client.enqueue('ver', {});
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await sup1.stop();
      const v2 = setup({}).createMachine({
        initial: 'other',
        states: { other: { on: { GO: 'end' } }, end: { type: 'final' } },
        output: () => 'v2',
      });
      await h.started({ jobs: [definePipeline({ name: 'ver', version: 2, machine: v2 })] });
      await client.send(id, { type: 'GO' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'failed');
      assert.equal(rec.error?.code, 'UNKNOWN_VERSION');
      assert.match(rec.error?.message ?? '', /version 1 is not registered/);
      const other = await h.client().enqueue('ver', {});
      await eventually(async () => (await client.get(other))?.status === 'waiting');
    } finally {
      await h.close();
    }
  });

  it('upgrades an old snapshot with the migrate hook', async () => {
    const h = new Harness(redis);
    try {
      const v1 = definePipeline({ name: 'mig', version: 1, machine: waitV1() });
      const sup1 = await h.started({ jobs: [v1] });
      const client = h.client({ jobs: [v1] });
      const id = await client.enqueue('mig', {});
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await sup1.stop();
      const v2 = setup({}).createMachine({
        initial: 'pending',
        states: { pending: { on: { GO: 'end' } }, end: { type: 'final' } },
        output: () => 'migrated',
      });
      const migrate = (snap: unknown, from: number) => {
        assert.equal(from, 1);
        const s = snap as { value: string };
        return { ...s, value: s.value === 'wait' ? 'pending' : s.value };
      };
      await h.started({ jobs: [definePipeline({ name: 'mig', version: 2, machine: v2, migrate })] });
      await client.send(id, { type: 'GO' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'done');
      assert.equal(rec.output, 'migrated');
    } finally {
      await h.close();
    }
  });

  /** A job parked in `from` with its `after` timer pending; the store wakes it at the due time. */
  const timed = (state: string, output: string) =>
    setup({}).createMachine({
      initial: state,
      states: { [state]: { after: { 4000: 'end' } }, end: { type: 'final' } },
      output: () => output,
    });
  const rename = (from: string, to: string) => (snap: unknown) => {
    const s = snap as { value: string };
    return { ...s, value: s.value === from ? to : s.value };
  };

  it('arms the after timer of a renamed state from now when the migrate leaves the old one behind', async () => {
    const h = new Harness(redis);
    try {
      const v1 = definePipeline({ name: 'timed', version: 1, machine: timed('wait', 'v1') });
      const sup1 = await h.started({ jobs: [v1] });
      const client = h.client({ jobs: [v1] });
      const id = await client.enqueue('timed', {});
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await sup1.stop();
      const seen: PipelineTimer[][] = [];
      const v2 = definePipeline({
        name: 'timed',
        version: 2,
        machine: timed('pause', 'v2'),
        migrate: (snap, _from, timers) => {
          seen.push([...timers]);
          return rename('wait', 'pause')(snap);
        },
      });
      await h.started({ jobs: [v2] });
      // An event it ignores wakes it now: the migrate runs long before the old timer is due.
      await client.send(id, { type: 'POKE' });
      const rec = await client.waitForResult(id, { timeoutMs: 12_000 });
      assert.equal(rec.status, 'done', 'the job finished (it used to wait for ever)');
      assert.equal(rec.output, 'v2');
      assert.match(seen[0]![0]!.id, /^xstate\.after\.4000\..*\.wait$/, 'migrate got the stored timer');
      const entry = (await client.events(id)).find((e) => e.type === 'timers-migrated');
      assert.ok(entry, 'a log entry says which timers were dropped and armed');
      assert.deepEqual(entry.dropped, [seen[0]![0]!.id]);
      assert.deepEqual(
        (entry.armed as { id: string }[]).map((t) => t.id),
        ['xstate.after.4000.(machine).pause'],
      );
    } finally {
      await h.close();
    }
  });

  it('keeps the timers a migrate returns changed, with their due times', async () => {
    const h = new Harness(redis);
    try {
      const v1 = definePipeline({ name: 'timed', version: 1, machine: timed('wait', 'v1') });
      const sup1 = await h.started({ jobs: [v1] });
      const client = h.client({ jobs: [v1] });
      const id = await client.enqueue('timed', {});
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      const dueAt = (await client.get(id))!.snapshot as { t: PipelineTimer[] };
      await sup1.stop();
      const v2 = definePipeline({
        name: 'timed',
        version: 2,
        machine: timed('pause', 'v2'),
        migrate: (snap, _from, timers) => ({
          snapshot: rename('wait', 'pause')(snap),
          timers: timers.map((t) => ({
            ...t,
            id: t.id.replace(/wait$/, 'pause'),
            event: { type: (t.event as { type: string }).type.replace(/wait$/, 'pause') },
          })),
        }),
      });
      await h.started({ jobs: [v2] });
      await client.send(id, { type: 'POKE' });
      const rec = await client.waitForResult(id, { timeoutMs: 12_000 });
      assert.equal(rec.output, 'v2');
      assert.ok(rec.finishedAt! >= dueAt.t[0]!.dueAt, 'not before the stored due time');
      assert.ok(
        !(await client.events(id)).some((e) => e.type === 'timers-migrated'),
        'nothing dropped, nothing armed',
      );
    } finally {
      await h.close();
    }
  });

  it('fails a job at once with UNKNOWN_STATE when a migrate leaves it in a state the machine does not have', async () => {
    const h = new Harness(redis);
    try {
      const v1 = definePipeline({ name: 'gone', version: 1, machine: waitV1() });
      const sup1 = await h.started({ jobs: [v1] });
      const client = h.client({ jobs: [v1] });
      const id = await client.enqueue('gone', {});
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      const parked = await client.get(id);
      await sup1.stop();
      const v2 = setup({}).createMachine({
        initial: 'other',
        states: { other: { on: { GO: 'end' } }, end: { type: 'final' } },
      });
      await h.started({
        jobs: [
          definePipeline({
            name: 'gone',
            version: 2,
            machine: v2,
            migrate: (s) => s,
            retry: { maxAttempts: 4 },
          }),
        ],
      });
      await client.send(id, { type: 'GO' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'failed');
      assert.equal(rec.attempts, 1, 'not retried');
      assert.equal(rec.error?.code, 'UNKNOWN_STATE');
      assert.match(rec.error?.message ?? '', /'gone' version 2 has no state 'wait'/);
      assert.match(rec.error?.message ?? '', /migrated from version 1/);
      assert.ok((await client.deadLetters()).some((d) => d.id === id));
      const snap = rec.snapshot as { w: unknown };
      assert.deepEqual(
        snap.w,
        (parked!.snapshot as { w: unknown }).w,
        'the stored snapshot is kept as it was',
      );
    } finally {
      await h.close();
    }
  });

  it('fails a job with UNKNOWN_STATE when a child machine it runs lost the state it is in', async () => {
    const h = new Harness(redis);
    try {
      const parent = (childStates: string) =>
        setup({
          actors: {
            child: setup({}).createMachine({
              initial: childStates,
              states: { [childStates]: { on: { GO: 'end' } }, end: { type: 'final' } },
            }),
          },
        }).createMachine({
          initial: 'run',
          states: { run: { invoke: { id: 'kid', src: 'child', onDone: 'end' } }, end: { type: 'final' } },
        });
      const before = definePipeline({ name: 'kidGone', machine: parent('hold') });
      const sup1 = await h.started({ jobs: [before] });
      const client = h.client({ jobs: [before] });
      const id = await client.enqueue('kidGone', {});
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await sup1.stop();
      // The same name and version, another child machine: a deploy that forgot to bump, and
      // overrode the supervisor's refusal (machineChanged.test.ts).
      await h.started({
        jobs: [definePipeline({ name: 'kidGone', machine: parent('pause') })],
        acceptChangedMachines: ['kidGone'],
      });
      await client.send(id, { type: 'POKE' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'failed');
      assert.equal(rec.attempts, 1);
      assert.equal(rec.error?.code, 'UNKNOWN_STATE');
      assert.match(rec.error?.message ?? '', /version 1 has no state 'hold' in its child 'kid'/);
    } finally {
      await h.close();
    }
  });

  /**
   * A job of version 1 that ran its first step and parked in `wait`; then a deploy of version 2
   * without migrate, where an event wakes it and it is set aside broken (UNKNOWN_VERSION); then
   * a deploy of version 2 with a migrate that maps its states, and a redrive.
   */
  async function brokenThenRedriven(h: Harness) {
    const steps: string[] = [];
    const migrations: unknown[] = [];
    const machine = (states: [string, string], output: string): AnyStateMachine =>
      setup({ actors: { first: step(async () => void steps.push('first')) } }).createMachine({
        initial: 'start',
        states: {
          start: { invoke: { id: 'first', src: 'first', onDone: states[0] } },
          [states[0]]: { on: { GO: states[1] } },
          [states[1]]: { on: { GO: 'end' } },
          end: { type: 'final' },
        },
        output: () => output,
      });
    const v1 = definePipeline({ name: 'redo', version: 1, machine: machine(['wait', 'wait2'], 'v1') });
    const sup1 = await h.started({ jobs: [v1] });
    const client: Client = h.client({ jobs: [v1] });
    const id = await client.enqueue('redo', {});
    await eventually(async () => (await client.get(id))?.status === 'waiting');
    await sup1.stop();
    const v2 = (migrate: boolean) =>
      definePipeline({
        name: 'redo',
        version: 2,
        machine: machine(['pending', 'pending2'], 'v2'),
        ...(migrate
          ? {
              migrate: (snap: unknown, from: number) => {
                migrations.push((snap as { value: unknown }).value);
                assert.equal(from, 1);
                const map: Record<string, string> = { wait: 'pending', wait2: 'pending2' };
                const s = snap as { value: string };
                return { ...s, value: map[s.value] ?? s.value };
              },
            }
          : {}),
      });
    const sup2 = await h.started({ jobs: [v2(false)] });
    await client.send(id, { type: 'GO' });
    await eventually(async () => (await client.broken()).some((b) => b.id === id));
    assert.match((await client.get(id))!.error?.message ?? '', /version 1 is not registered/);
    await sup2.stop();
    // The writes of the supervisor that migrates, as it hands them to the store.
    const writes: CommitOp[] = [];
    const store = new Proxy(h.store, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (key === 'commit')
          return (queue: string, ops: CommitOp[], claim?: ClaimRequest) => {
            writes.push(...ops);
            return target.commit(queue, ops, claim);
          };
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    await h.started({ jobs: [v2(true)], store });
    await client.retryDeadLetter(id);
    return { client, id, steps, migrations, writes };
  }

  it('redrives an UNKNOWN_VERSION job from its stored snapshot through migrate; completed steps do not run again', async () => {
    const h = new Harness(redis);
    try {
      const { client, id, steps, migrations, writes } = await brokenThenRedriven(h);
      // The event that woke it into the broken set went with its inbox (a failed job's is
      // emptied): it resumes in the state it was parked in, now named pending.
      await eventually(async () => {
        const rec = await client.get(id);
        return rec?.status === 'waiting' && rec.state === 'pending';
      });
      await client.send(id, { type: 'GO' });
      await eventually(async () => (await client.get(id))?.state === 'pending2');
      await client.send(id, { type: 'GO' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.status, 'done');
      assert.equal(rec.output, 'v2');
      assert.deepEqual(steps, ['first'], 'the step before the park did not run again');
      assert.deepEqual(migrations[0], 'wait', 'migrate got the stored v1 snapshot');
      // The first snapshot written after the migrate is v2's and says so; the record then is v2,
      // so later runs neither migrate nor need to say it again.
      const stored = writes.filter((w) => w.id === id && 'snapshot' in w && w.snapshot);
      assert.ok(stored.length >= 2, JSON.stringify(stored.map((w) => w.kind)));
      assert.equal((stored[0] as { version?: number }).version, 2, `${stored[0]!.kind} carries v2`);
      assert.equal(rec.version, 2);
      assert.equal(migrations.length, 1, 'migrate ran once');
    } finally {
      await h.close();
    }
  });

  it('stores the version a migrated job now runs on, so migrate runs once', async () => {
    const h = new Harness(redis);
    try {
      const { client, id, migrations } = await brokenThenRedriven(h);
      await eventually(async () => {
        const rec = await client.get(id);
        return rec?.status === 'waiting' && rec.state === 'pending';
      });
      assert.equal((await client.get(id))!.version, 2, 'the first write after the migrate stored v2');
      await client.send(id, { type: 'GO' }); // claimed again: a v2 snapshot, nothing to migrate
      await eventually(async () => (await client.get(id))?.state === 'pending2');
      await client.send(id, { type: 'GO' });
      const rec = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(rec.version, 2);
      assert.deepEqual(migrations, ['wait'], 'migrate ran once, on the v1 snapshot');
    } finally {
      await h.close();
    }
  });
});
