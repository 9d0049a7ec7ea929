// Probe for issue 25: what a parked pipeline's resume costs Redis, piece by piece. N of workload
// 15's pipelines (parkUntil) are parked by a Supervisor of each root, which then stops; once they
// are due, the probe itself makes the calls a worker would, each counted alone:
//   promote   the first claim (of 1 job): the due timers' promotion from `delayed` to `queued`
//   claim     claims of 100 (the woken jobs, their snapshots in the reply)
//   done      the dones of those, as the compiled runner writes them (snapshot, state, 4 entries)
//   early     with --early LEAD (a root with THE EARLY LEASE, round nine): before they are due,
//             claims of 1 that hold up to 100 each (lcClaimEarly.lua), from LEAD before the due
//             time (give a LEAD past --due: all held long before it); then nothing is left to
//             promote or claim at the due time, only the dones
// Printed per root: instructions per job of each (under callgrind; else script usec, not exact).
//
//   node --import tsx bench/probes/resumeParts.ts ROOT... [--jobs 1000] [--due MS] [--early LEAD]
//     [--port P --callgrind PID:FILE]   as commitOps.ts
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { commandStats } from '../redis.js';
import { instructionsSinceZero, zeroCounts } from './callgrind.js';

const argv = process.argv.slice(2);
const take = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? undefined : argv.splice(i, 2)[1];
};
const PORT = Number(take('port') ?? 6390);
const [cgPid, cgFile] = take('callgrind')?.split(':') ?? [];
const JOBS = Number(take('jobs') ?? 1000);
const DUE_MS = Number(take('due') ?? 5_000 + 10 * JOBS);
const EARLY_MS = Number(take('early') ?? 0);
const roots = argv;
const ctl = new Redis({ host: '127.0.0.1', port: PORT });
const url = `redis://127.0.0.1:${PORT}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function zero(): Promise<void> {
  await ctl.config('RESETSTAT');
  if (cgPid) zeroCounts(cgPid);
}
async function cost(): Promise<number> {
  if (!cgPid) return (await commandStats(ctl)).get('fcall')?.usec ?? 0;
  return instructionsSinceZero(cgPid, cgFile!);
}

for (const root of roots) {
  const src = await import(pathToFileURL(resolve(root, 'src/index.ts')).href);
  const { parkUntil } = await import(pathToFileURL(resolve(root, 'bench/machines.ts')).href);
  await ctl.flushall();
  const prefix = 'rp';
  const store = new src.RedisStore({ url, prefix });
  const client = new src.Client({ store, jobs: [parkUntil], queue: 'q' });
  const sup = new src.Supervisor({ store, jobs: [parkUntil], queues: ['q'], concurrency: 100 });
  await sup.start();
  const at = Date.now() + DUE_MS;
  await client.enqueueMany(Array.from({ length: JOBS }, () => ({ machine: parkUntil.name, input: { at } })));
  while ((await ctl.zcard(`${prefix}:{q}:delayed`)) < JOBS) {
    if (Date.now() > at) throw new Error('not all parked by the due time: raise --due');
    await sleep(50);
  }
  await sup.stop();
  const claim = (max: number) => ({ workerId: 'w', leaseMs: 600_000, max, loadMachines: [] });
  const sums = { promote: 0, claim: 0, done: 0, early: 0 };
  const held: { id: string; token: string }[] = [];
  if (EARLY_MS > 0) {
    // Within the lead (a lead past --due: at once): every claim done well before the due time
    // (under callgrind a claim of 100 takes about a second).
    while (Date.now() < at - EARLY_MS) await sleep(20);
    for (;;) {
      await zero();
      const r = await store.commit('q', [], { ...claim(1), leadMs: EARLY_MS, hold: 100 });
      const c = await cost();
      sums.early += c;
      if (process.env.PROBE_VERBOSE) console.log(`early call: ${r.claimed.length} held, ${c} instructions`);
      if (r.claimed.length === 0) break;
      held.push(...r.claimed);
    }
  }
  while (Date.now() < at + 50) await sleep(20);
  await zero();
  let { claimed } = await store.commit('q', [], claim(1));
  sums.promote = await cost();
  const all = [...held, ...claimed];
  for (;;) {
    await zero();
    ({ claimed } = await store.commit('q', [], claim(100)));
    sums.claim += await cost();
    if (claimed.length === 0) break;
    all.push(...claimed);
  }
  const ctx = `{"at":${at}}`;
  for (let i = 0; i < all.length; i += 100) {
    const ops = all.slice(i, i + 100).map((c: { id: string; token: string }) => ({
      kind: 'done',
      id: c.id,
      token: c.token,
      output: 'null',
      snapshot: `{"w":{"status":"done","value":"end","context":${ctx}}}`,
      state: '"end"',
      log: [
        '{"type":"resumed"}',
        `{"type":"state","context":${ctx},"state":"parked"}`,
        '{"type":"state","state":"end"}',
        '{"type":"done"}',
      ],
    }));
    await zero();
    const r = await store.commit('q', ops);
    sums.done += await cost();
    if (!(r.written as boolean[]).every(Boolean))
      throw new Error(`done not written: ${JSON.stringify(r.written)}`);
  }
  if ((await ctl.zcard(`${prefix}:{q}:done`)) !== JOBS) throw new Error('not all done');
  const per = (x: number) => Math.round(x / JOBS);
  console.log(
    `${root}\tearly ${per(sums.early)} (${held.length} held)\tpromote ${per(sums.promote)}\tclaim ${per(sums.claim)}\tdone ${per(sums.done)}\tall ${per(sums.early + sums.promote + sums.claim + sums.done)}`,
  );
  client.close();
  await store.close();
}
ctl.disconnect();
