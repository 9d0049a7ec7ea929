// The chart a user sees is the lifecycle that runs: the status moves both stores allow are
// computed from machines/job.ts (src/store/lifecycleTable.ts walks its transitions when it
// loads), plus REDRIVE (a dead letter back in line: a new lifecycle, so the machine, where
// `failed` is final, cannot show it). The Lua's EDGES is generated from that table, so the
// tests here prove the generation: the table is the one stated below, the Lua's is the same key
// for key, and a transition of a machine is a move of its table.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { setup } from 'xstate';
import { jobMachine } from '../../machines/job.js';
import { withIncludes } from '../../src/store/redis/scripts.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { EDGES, FINAL, UPDATABLE, machineMoves } from '../../src/store/lifecycleTable.js';

type Edges = Record<string, Record<string, string>>;

/** from -> to pairs of the machine: each state's `on` targets, and the root's CANCEL from every non-final state. */
function machineEdges(): Set<string> {
  const out = new Set<string>();
  const states = jobMachine.root.states;
  const rootCancel = jobMachine.root.on.CANCEL !== undefined;
  for (const [name, node] of Object.entries(states)) {
    for (const transitions of Object.values(node.on)) {
      for (const t of transitions) for (const target of t.target ?? []) out.add(`${name} -> ${target.key}`);
    }
    if (rootCancel && node.type !== 'final') out.add(`${name} -> cancelled`);
  }
  return out;
}

describe('the lifecycle table', () => {
  let redis: TestRedis;
  let raw: Redis;
  before(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  });
  after(async () => {
    raw.disconnect();
    await redis.stop();
  });

  async function luaEdges(): Promise<Edges> {
    const lua = withIncludes('return cjson.encode(EDGES)\n');
    return JSON.parse((await raw.eval(lua, 0)) as string) as Edges;
  }

  it('allows exactly the moves of machines/job.ts, plus REDRIVE', async () => {
    const edges = await luaEdges();
    const lua = new Set<string>();
    for (const [from, tos] of Object.entries(edges))
      for (const to of Object.keys(tos)) lua.add(`${from} -> ${to}`);
    const expected = machineEdges();
    expected.add('failed -> queued');
    assert.deepEqual([...lua].sort(), [...expected].sort());
  });

  it('names the same statuses as the machine', async () => {
    const edges = await luaEdges();
    assert.deepEqual(Object.keys(edges).sort(), Object.keys(jobMachine.root.states).sort());
  });

  it('is the table stated here: each move with the event that makes it', () => {
    assert.deepEqual(EDGES, {
      queued: { loading: 'CLAIM', working: 'CLAIM', cancelled: 'CANCEL' },
      loading: { working: 'LOADED', queued: 'FAIL', failed: 'FAIL', cancelled: 'CANCEL' },
      working: { done: 'SUCCEED', queued: 'FAIL', failed: 'FAIL', waiting: 'PARK', cancelled: 'CANCEL' },
      waiting: { queued: 'WAKE', cancelled: 'CANCEL' },
      done: {},
      failed: { queued: 'REDRIVE' },
      cancelled: {},
    });
    assert.deepEqual([...FINAL].sort(), ['cancelled', 'done', 'failed']);
    assert.deepEqual([...UPDATABLE].sort(), ['loading', 'working']);
  });

  it("is MemoryStore's table too: the Lua's is the TypeScript one, key for key", async () => {
    assert.deepEqual(await luaEdges(), EDGES);
    const setOf = async (name: string) =>
      (
        (await raw.eval(
          withIncludes(`local t = {}\nfor k in pairs(${name}) do t[#t + 1] = k end\nreturn t`),
          0,
        )) as string[]
      ).sort();
    assert.deepEqual(await setOf('FINAL'), [...FINAL].sort());
    assert.deepEqual(await setOf('UPDATABLE'), [...UPDATABLE].sort());
  });

  it("is computed from the machine: a state's transitions and the root's, none from a final state", () => {
    const toy = setup({}).createMachine({
      id: 'toy',
      initial: 'a',
      states: {
        a: { tags: ['active'], on: { GO: 'b', BACK: 'a', STOP: 'b' } },
        b: { on: { GO: [{ guard: () => false, target: 'a' }, { target: 'c' }] } },
        c: { type: 'final' },
      },
      on: { STOP: '.c' },
    });
    const moves = machineMoves(toy);
    assert.deepEqual(moves.edges, { a: { b: 'GO', a: 'BACK' }, b: { a: 'GO', c: 'GO' }, c: {} });
    assert.deepEqual([...moves.final], ['c']);
    assert.deepEqual([...moves.active], ['a']);
  });

  it('names the machine event of each move', async () => {
    const edges = await luaEdges();
    assert.equal(edges.failed?.queued, 'REDRIVE');
    for (const [from, node] of Object.entries(jobMachine.root.states)) {
      for (const [event, transitions] of Object.entries(node.on)) {
        for (const t of transitions) {
          for (const target of t.target ?? []) {
            const named = edges[from]?.[target.key];
            // One status pair may be reached by several events (FAIL, RETRY_LATER, REQUEUE all
            // requeue): the table names one of them.
            assert.ok(named !== undefined, `${from} -> ${target.key} (${event}) missing`);
          }
        }
      }
    }
  });
});
