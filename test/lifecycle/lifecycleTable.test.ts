// The chart a user sees is the lifecycle that runs: the status moves the Lua allows (its EDGES
// table, generated from src/store/lifecycleTable.ts) are exactly the transitions of machines/job.ts, plus REDRIVE (a dead
// letter back in line: a new lifecycle, so the machine, where `failed` is final, cannot show it);
// and MemoryStore moves jobs by the same table (src/store/lifecycleTable.ts, which the Lua's EDGES is generated from).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { jobMachine } from '../../machines/job.js';
import { withIncludes } from '../../src/store/redis/scripts.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { EDGES as MEMORY_EDGES } from '../../src/store/lifecycleTable.js';

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

  it("is MemoryStore's table too: the same moves with the same events, key for key", async () => {
    assert.deepEqual(await luaEdges(), MEMORY_EDGES);
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
