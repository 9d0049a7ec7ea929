// What the end of a schedule's job does to its schedule, on both stores: a buffered tick starts
// as soon as the job before it ends (not at the schedule's re-check), and a failed job pauses a
// schedule with pauseOnFailure, with a note naming the job and its error, until a resume.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { NonRetryableError, defineJob, type Client } from '../../src/index.js';
import { describeOnEachStore } from '../support/eachStore.js';

/** Resolves with what `read` gives once truthy, polling every 50 ms; rejects after `ms`. */
async function until<T>(what: string, read: () => Promise<T>, ms = 15_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first job of 'held' waits for the test's release; later ones end at once. */
let release: () => void = () => undefined;
let held: Promise<void> | undefined;
const heldJob = defineJob({
  name: 'held',
  work: async () => {
    if (!held) {
      held = new Promise((r) => (release = r));
      await held;
    }
    return 'ok';
  },
});

const failing = defineJob({
  name: 'failing',
  work: () => {
    throw new NonRetryableError('the disk is full');
  },
});

async function lastNote(client: Client, id: string): Promise<string | null> {
  const s = await client.getSchedule(id);
  return s?.paused ? s.note : null;
}

describeOnEachStore('schedule job endings', (world) => {
  it('starts a buffered tick within a second of the end of the job before it, though its re-check is 30 s away', async () => {
    held = undefined;
    const h = world();
    const client = h.client({ jobs: [heldJob] });
    // The loop looks at a buffered schedule again only every 30 s: only the ending can start it sooner.
    await h.started({ jobs: [heldJob], schedules: { leaseMs: 500, bufferRecheckMs: 30_000 } });
    try {
      const startAt = (await h.store.now()) + 1500;
      await client.schedule('buf', {
        everyMs: 1500,
        machine: 'held',
        overlap: 'bufferOne',
        startAt,
        endAt: startAt + 1500,
      });
      const first = `sch.buf.${startAt}`;
      const second = `sch.buf.${startAt + 1500}`;
      await until(
        'the second tick buffered',
        async () => (await client.getSchedule('buf'))?.buffered.length === 1,
      );
      assert.equal((await client.get(first))?.status, 'working', 'the first job still runs');
      assert.equal(await client.get(second), null, 'the second tick waits');
      release();
      const ended = await until('the first job done', async () => {
        const j = await client.get(first);
        return j?.status === 'done' ? j : null;
      });
      const next = await until('the buffered job', () => client.get(second), 10_000);
      const lateMs = next.createdAt - ended.finishedAt!;
      assert.ok(lateMs < 1000, `the buffered job started ${lateMs} ms after the job before it ended`);
      await until('the second job done', async () => (await client.get(second))?.status === 'done');
      const s = (await client.getSchedule('buf'))!;
      assert.deepEqual(s.buffered, []);
      assert.equal(s.started, 2);
    } finally {
      release();
      await h.close();
    }
  });

  it('pauses a schedule with pauseOnFailure when its job fails, naming the job and its error; a resume clears it', async () => {
    const h = world();
    const client = h.client({ jobs: [failing] });
    await h.started({ jobs: [failing], schedules: { leaseMs: 500 } });
    try {
      const startAt = (await h.store.now()) + 1500;
      await client.schedule('pof', { everyMs: 300, machine: 'failing', startAt, pauseOnFailure: true });
      const note = await until('the pause', () => lastNote(client, 'pof'));
      const paused = (await client.getSchedule('pof'))!;
      const failed = paused.recent.find((a) => a.what === 'paused')!.jobId!;
      assert.match(failed, /^sch\.pof\.\d+$/);
      assert.equal((await client.get(failed))?.status, 'failed');
      assert.match(note, new RegExp(`job ${failed.replace(/\./g, '\\.')} failed`));
      assert.match(note, /the disk is full/);
      assert.deepEqual(paused.nextTicks, [], 'no ticks while paused');

      const resumed = await client.resumeSchedule('pof');
      assert.equal(resumed.paused, false);
      assert.equal(resumed.note, null);
      // The next tick's job fails too: paused again, for that job, not the one before.
      const again = await until('the second pause', () => lastNote(client, 'pof'));
      assert.doesNotMatch(again, new RegExp(failed.replace(/\./g, '\\.')));

      // Without the option a failure pauses nothing.
      await client.schedule('plain', {
        everyMs: 300,
        machine: 'failing',
        startAt: (await h.store.now()) + 500,
      });
      await until('a failed job of plain', async () => {
        const s = await client.getSchedule('plain');
        return s?.lastJob ? (await client.get(s.lastJob.id))?.status === 'failed' : false;
      });
      await new Promise((r) => setTimeout(r, 700));
      assert.equal((await client.getSchedule('plain'))!.paused, false);
    } finally {
      await h.close();
    }
  });

  it('pauses for a last job found failed when no schedule loop followed it to its end', async () => {
    const h = world();
    const client = h.client({ jobs: [failing] });
    try {
      await client.schedule('late', {
        everyMs: 2000,
        machine: 'failing',
        paused: true,
        pauseOnFailure: true,
      });
      const id = (await client.triggerSchedule('late'))!;
      // A supervisor without schedules runs it: no schedule loop follows it.
      const worker = await h.started({ jobs: [failing], schedules: false });
      await until('the job failed', async () => (await client.get(id))?.status === 'failed');
      await worker.stop({ graceMs: 0 });
      await h.started({ jobs: [failing], schedules: { leaseMs: 500 } });
      await client.resumeSchedule('late');
      // The next tick's pass finds the last job failed and pauses before it starts anything.
      const note = await until('the pause', () => lastNote(client, 'late'));
      assert.match(note, new RegExp(`job ${id.replace(/\./g, '\\.')} failed .*the disk is full`));
      assert.equal(
        (await client.getSchedule('late'))!.started,
        1,
        'the tick found it failed and started nothing',
      );
    } finally {
      await h.close();
    }
  });
});
