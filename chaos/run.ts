// npm run chaos: proves the delivery contract under real faults (docs/RELIABILITY.md). Each
// test starts its own redis-server (AOF on, a random loopback port) and real worker processes,
// injects its faults, lets the work settle and checks the oracle against Redis.
//
//   npm run chaos                     every test, full size; writes docs/RELIABILITY.md
//   CHAOS_QUICK=1 npm run chaos       the short variant (.ci/run): fewer jobs and faults
//   npm run chaos -- T1 T5            some tests only (CHAOS_WRITE=1 records them in the doc)
//   CHAOS_SEED=7 CHAOS_KEEP=1 ...     another workload; keep every test's oracle files
//   CHAOS_RECORD=minimal ...           the mix's simple jobs with record: 'minimal' (mix.ts): their
//                                      loss is counted from the queue's tally of done jobs
//
// Exits 1 when any target is missed, naming it; the oracle files of a failed test are kept
// (their directory is printed) for the diagnosis.

import { bundleWorker } from './bundle.js';
import { reapAll } from './procs.js';
import { renderTable, store, writeDoc } from './report.js';
import type { Result, RunEnv, Scenario } from './scenario.js';
import { t1, t2, t3 } from './faults/workers.js';
import { t4, t5, t9 } from './faults/redis.js';
import { t6 } from './faults/replies.js';
import { t7 } from './faults/poison.js';
import { t8 } from './faults/clocks.js';
import { t10, t11 } from './faults/jobs.js';
import { t16 } from './faults/failover.js';
import { t17 } from './faults/schedules.js';
import { t18 } from './faults/limits.js';

const SCENARIOS: Scenario[] = [t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t16, t17, t18];

async function main(): Promise<number> {
  const quick = process.env.CHAOS_QUICK === '1';
  const only = process.argv.slice(2).map((s) => s.toUpperCase());
  const chosen = SCENARIOS.filter((s) => (only.length ? only.includes(s.id) : !quick || s.quick));
  if (chosen.length === 0) {
    console.error(`no test named ${only.join(', ')}; tests: ${SCENARIOS.map((s) => s.id).join(', ')}`);
    return 2;
  }
  const env: RunEnv = {
    quick,
    worker: bundleWorker(),
    seed: Number(process.env.CHAOS_SEED ?? 1),
    keep: process.env.CHAOS_KEEP === '1',
  };
  const results: Result[] = [];
  for (const s of chosen) {
    const t0 = Date.now();
    console.log(`--- ${s.id} ${s.title}${quick ? ' (quick)' : ''}`);
    try {
      // Every test stops by itself: one that has not ended in 15 minutes is a missed target.
      let watchdog: NodeJS.Timeout | undefined;
      const rs = await Promise.race([
        s.run(env),
        new Promise<never>((_, reject) => {
          watchdog = setTimeout(() => reject(new Error('did not end within 15 minutes')), 15 * 60_000);
        }),
      ]).finally(() => clearTimeout(watchdog));
      for (const r of rs) {
        results.push(r);
        for (const t of r.targets)
          console.log(`  ${t.ok ? 'ok  ' : 'MISS'} ${r.id} ${t.what}: ${t.measured}`);
        for (const n of r.notes) console.log(`       ${n}`);
        if (r.kept) console.log(`       oracle files kept in ${r.kept}`);
      }
    } catch (err) {
      console.log(`  MISS ${s.id} ran to its end: ${(err as Error).stack ?? String(err)}`);
      results.push({
        id: s.id,
        title: s.title,
        procedure: '',
        targets: [{ what: 'ran to its end', measured: String((err as Error).message), ok: false }],
        notes: [],
        seconds: (Date.now() - t0) / 1000,
      });
    }
    await reapAll();
  }
  console.log('\n' + renderTable(results) + '\n');
  const missed = results.flatMap((r) => r.targets.filter((t) => !t.ok).map((t) => `${r.id}: ${t.what}`));
  const write =
    process.env.CHAOS_WRITE === '1' || (process.env.CHAOS_WRITE !== '0' && !quick && only.length === 0);
  if (write) {
    const command = `${quick ? 'CHAOS_QUICK=1 ' : ''}npm run chaos${only.length ? ` -- ${only.join(' ')}` : ''}`;
    writeDoc(store(results, command));
    console.log('results written to docs/RELIABILITY.md (chaos/results.json)');
  }
  const passed = results.reduce((n, r) => n + r.targets.filter((t) => t.ok).length, 0);
  console.log(`chaos: ${passed} passed, ${missed.length} failed`);
  for (const m of missed) console.log(`  missed ${m}`);
  // Again at the end, beside the verdict: a CI log keeps its tail, and the oracle files of a
  // miss are gone with the machine it ran on.
  for (const r of results) {
    if (r.targets.every((t) => t.ok)) continue;
    for (const n of r.notes) console.log(`  ${r.id} ${n}`);
  }
  return missed.length ? 1 : 0;
}

main().then(
  async (code) => {
    await reapAll();
    process.exit(code);
  },
  async (err: unknown) => {
    console.error(err);
    await reapAll();
    process.exit(1);
  },
);
