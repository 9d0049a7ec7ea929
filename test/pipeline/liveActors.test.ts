// What survives a crash of a pipeline whose state runs a `fromCallback` or `fromObservable` actor:
// the machine resumes from its last checkpoint (what the actor had sent and the machine had
// taken by then stays), and the actor itself is started again from scratch with the input it was
// first given (a callback's timers and a subscription's position are not persisted). A real
// worker process is killed with SIGKILL; a second one finishes the jobs.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import { fixtureEnv, killFixture, spawnFixture } from '../support/spawnFixture.js';
import { TARGET, liveActorPipelines } from '../fixtures/liveActorJobs.js';

interface Line {
  what: string;
  arg: string;
  pid: number;
}

describe('callback and observable actors across a worker crash', () => {
  let redis: TestRedis;
  let h: Harness;
  const children: ChildProcess[] = [];
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    for (const c of children) killFixture(c);
    children.length = 0;
    await h.close();
  });

  async function startWorker(runLog: string): Promise<ChildProcess> {
    const { child, ready } = spawnFixture('liveActorWorker.ts', {
      ...fixtureEnv(redis, h.prefix),
      RUN_LOG: runLog,
    });
    children.push(child);
    await ready;
    return child;
  }

  const readLog = (runLog: string): Line[] =>
    readFileSync(runLog, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const parts = l.split(' ');
        const pid = Number(parts.pop());
        return { what: parts[0]!, arg: parts[1] ?? '', pid };
      });

  it('resumes from the last checkpoint and starts each running callback or observable again, with its first input', async () => {
    h = new Harness(redis);
    const runLog = join(mkdtempSync(join(tmpdir(), 'machinist-live-')), 'runs.log');
    writeFileSync(runLog, '');
    const client = h.client({ jobs: liveActorPipelines(() => {}) });
    const first = await startWorker(runLog);
    const ticker = await client.enqueue('ticker', null);
    const counter = await client.enqueue('counter', null);

    // Some of what each actor produced is checkpointed, not all: then the worker dies.
    const taken = async (id: string, key: 'ticks' | 'seen') =>
      ((await client.get(id))?.context as Record<string, number> | null)?.[key] ?? 0;
    await eventually(
      async () => (await taken(ticker, 'ticks')) >= 5 && (await taken(counter, 'seen')) >= 5,
      10_000,
    );
    const exited = new Promise((r) => first.once('exit', r));
    first.kill('SIGKILL');
    await exited;
    const tickerAtKill = await taken(ticker, 'ticks');
    const counterAtKill = await taken(counter, 'seen');
    assert.ok(tickerAtKill < TARGET && counterAtKill < TARGET, 'killed mid-way');

    const second = await startWorker(runLog);
    const tickerDone = await client.waitForResult(ticker, { timeoutMs: 15_000 });
    const counterDone = await client.waitForResult(counter, { timeoutMs: 15_000 });
    assert.equal(tickerDone.status, 'done');
    assert.equal(counterDone.status, 'done');
    for (const id of [ticker, counter])
      assert.ok((await client.events(id)).some((e) => e.type === 'lease-requeued'));

    const log = readLog(runLog);
    const inSecond = log.filter((l) => l.pid === second.pid);
    // Started again in the new worker, with the input the invoke first gave it (not recomputed
    // from the context the machine resumed with).
    assert.deepEqual(
      log.filter((l) => l.what === 'callback-start').map((l) => [l.arg, l.pid]),
      [
        ['0', first.pid],
        ['0', second.pid],
      ],
    );
    assert.deepEqual(
      log.filter((l) => l.what === 'observable-start').map((l) => [l.arg, l.pid]),
      [
        ['100', first.pid],
        ['100', second.pid],
      ],
    );
    // What the machine had taken and checkpointed stays: the new worker needed only the rest.
    const ticksAfter = inSecond.filter((l) => l.what === 'tick').length;
    assert.ok(ticksAfter <= TARGET - tickerAtKill, `${ticksAfter} ticks after the crash`);
    assert.deepEqual(tickerDone.output, { ticks: TARGET });
    // The observable subscribes again from its start: its values begin anew at 100.
    const emitsAfter = inSecond.filter((l) => l.what === 'emit');
    assert.equal(emitsAfter[0]?.arg, '100');
    assert.ok(emitsAfter.length <= TARGET - counterAtKill, `${emitsAfter.length} values after the crash`);
    const out = counterDone.output as { seen: number; last: number };
    assert.equal(out.seen, TARGET);
    assert.ok(out.last >= 100 && out.last < 100 + TARGET - counterAtKill, `last value ${out.last}`);
  });
});
