// Probe for issue 25: what a parked pipeline's record would cost in the layouts a format change
// could give it, without building them. Parks N of workload 15's pipelines (parkUntil, an hour
// away), keeps each record as written, then writes every record afresh in each layout below (a
// new hash: a hash table never shrinks, and a new hash whose values are all <= 64 B is a listpack
// under the default `hash-max-listpack-value`), printing used_memory per job after each. The
// layouts build on one another (each line adds its lever to the one above, unless it says
// "from"); none is read back by a worker, so this measures memory only.
//   lost      bench/RESULTS.md's "Tried, not merged": `sn` compact further (no `status` when
//             'active', an `after` timer's id without `xstate.after.`) and cut in two fields (`sn`
//             = `+` and its first 63 bytes, `sx` the rest), log entries `<at> <type><JSON rest>`
//   delta     every log entry's time as ms since `ca` (a short number: `<at - ca> ...`)
//   no tk     the park's empty lease token not kept
//   implicit l1   the `enqueued` entry left implicit (it is at `ca`)
//   implicit l1-l3   `claimed` and `started` too
//   one index     (from the line before) the job's `waiting` entry gone (`delayed` alone)
// A loaded machine changes none of these figures.
//
//   node --import tsx --import ./bench/fromDist.mjs bench/probes/parkedLayouts.ts PORT [N]
//   FLUSHALL on a redis-server of your own

import { Redis } from 'ioredis';
import { usedMemory } from '../redis.js';
import { parkAll } from './parkAll.js';

const port = Number(process.argv[2]);
const N = Number(process.argv[3] ?? 10_000);
const url = `redis://127.0.0.1:${port}`;
const raw = new Redis(url);
type Rec = Record<string, string>;

const mem0 = await parkAll(raw, url, N);
const per = async () => Math.round(((await usedMemory(raw)) - mem0) / N);
const ids = await raw.zrange('mb:{q}:delayed', '0', '-1');
const keyOf = (id: string) => `mb:{q}:job:${id}`;
const originals: Rec[] = [];
for (let i = 0; i < ids.length; i += 1000) {
  const r = raw.pipeline();
  for (const id of ids.slice(i, i + 1000)) r.hgetall(keyOf(id));
  for (const [, v] of (await r.exec()) ?? []) originals.push(v as Rec);
}
console.log(`N=${N}: parked ${await per()} B/job as written`);
console.log('a record as written:', JSON.stringify(originals[0]));

async function show(label: string): Promise<void> {
  const k = keyOf(ids[0]!);
  const enc = String(await raw.object('ENCODING', k));
  const usage = await raw.memory('USAGE', k, 'SAMPLES', '0');
  const longest = Math.max(...Object.entries(await raw.hgetall(k)).map(([, v]) => Buffer.byteLength(v)));
  console.log(
    `${label.padEnd(22)} ${await per()} B/job  (a record: ${await raw.hlen(k)} fields, ${enc}, ${usage} B, longest value ${longest} B)`,
  );
}
async function afresh(label: string, make: (r: Rec) => Rec): Promise<void> {
  for (let i = 0; i < ids.length; i += 1000) {
    const w = raw.pipeline();
    for (let j = i; j < Math.min(i + 1000, ids.length); j++)
      w.del(keyOf(ids[j]!)).hset(keyOf(ids[j]!), make(originals[j]!));
    await w.exec();
  }
  await show(label);
}

const isLog = (f: string) => /^l\d+$/.test(f);
/** Rewrites each log entry `<at> <rest>` with `f`. */
const mapLog = (r: Rec, f: (at: number, rest: string, r: Rec) => string | undefined): Rec => {
  const out: Rec = {};
  for (const [k, v] of Object.entries(r)) {
    if (!isLog(k)) {
      out[k] = v;
      continue;
    }
    const sp = v.indexOf(' ');
    const e = f(Number(v.slice(0, sp)), v.slice(sp + 1), r);
    if (e !== undefined) out[k] = e;
  }
  return out;
};
const lost = (r: Rec): Rec => {
  const out = mapLog(r, (t, rest) => {
    if (!rest.startsWith('{')) return `${t} ${rest}`;
    const { type, ...more } = JSON.parse(rest) as { type: string };
    return `${t} ${type}${Object.keys(more).length ? JSON.stringify(more) : ''}`;
  });
  const sn = JSON.parse(r.sn!) as { w: { status?: string }; t?: { id: string }[] };
  if (sn.w.status === 'active') delete sn.w.status;
  for (const t of sn.t ?? []) t.id = t.id.replace(/^xstate\.after\./, '');
  const text = JSON.stringify(sn);
  if (text.length <= 64) out.sn = text;
  else {
    out.sn = `+${text.slice(0, 63)}`;
    out.sx = text.slice(63);
  }
  return out;
};
const delta = (r: Rec): Rec => mapLog(lost(r), (t, rest, rec) => `${t - Number(rec.ca)} ${rest}`);
const noTk = (r: Rec): Rec => {
  const { tk: _tk, ...out } = delta(r);
  return out;
};
const implicit =
  (n: number) =>
  (r: Rec): Rec => {
    const out = noTk(r);
    for (let i = 1; i <= n; i++) delete out[`l${i}`];
    return out;
  };

await afresh('as written, afresh', (r) => r);
await afresh('lost', lost);
await afresh('+ delta', delta);
await afresh('+ no tk', noTk);
await afresh('+ implicit l1', implicit(1));
await afresh('+ implicit l1-l3', implicit(3));
for (let i = 0; i < ids.length; i += 1000) await raw.zrem('mb:{q}:waiting', ...ids.slice(i, i + 1000));
await show('+ one index');
raw.disconnect();
