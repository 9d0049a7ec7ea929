// Probe: what tracing and metrics cost a worker. Worker throughput (no-op jobs, one Supervisor,
// concurrency 50, in this process) with:
//   off        tracing: false on Client and Supervisor (@opentelemetry/api never consulted)
//   api        @opentelemetry/api installed, no tracer provider registered (the default setup)
//   metrics    as `api`, plus a MachinistMetrics observer
//   provider   a BasicTracerProvider registered, spans dropped by a NoopSpanProcessor (what the
//              spans themselves cost, without any export)
// Each rep enqueues JOBS jobs first, then times the supervisor draining them; the modes take
// turns, REPS times. Printed per mode: the median jobs/s (wall clock: swings with whatever else
// the machine runs) and the median CPU time this process spent per job while draining (user +
// system: the worker's own cost, much steadier on a shared machine). A private redis-server is
// started.
//
//   npx tsx bench/probes/tracingCost.ts [JOBS=20000] [REPS=5]

import { cpus } from 'node:os';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { pino } from 'pino';
import { Client, MachinistMetrics, RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { startRedis } from '../redis.js';

const JOBS = Number(process.argv[2] ?? 20_000);
const REPS = Number(process.argv[3] ?? 5);
const noop = defineJob({ name: 'noop', work: () => null });
type Mode = 'off' | 'api' | 'metrics' | 'provider';
const MODES: Mode[] = ['off', 'api', 'metrics', 'provider'];

const redis = await startRedis();
const results = new Map<Mode, { rate: number; cpuUs: number }[]>(MODES.map((m) => [m, []]));

async function runOnce(mode: Mode, rep: number): Promise<{ rate: number; cpuUs: number }> {
  await redis.ctl.flushall();
  if (mode === 'provider')
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] }));
  const store = new RedisStore({ url: redis.url, prefix: `tc${rep}` });
  const tracing = mode !== 'off';
  const client = new Client({ store, jobs: [noop], tracing });
  for (let i = 0; i < JOBS; i += 1000)
    await client.enqueueMany(
      Array.from({ length: Math.min(1000, JOBS - i) }, () => ({ machine: 'noop', input: null })),
    );
  const supervisor = new Supervisor({
    store,
    jobs: [noop],
    concurrency: 50,
    tracing,
    observers: mode === 'metrics' ? [new MachinistMetrics()] : [],
    logger: pino({ level: 'silent' }),
  });
  const started = performance.now();
  const cpu = process.cpuUsage();
  await supervisor.start();
  for (;;) {
    if ((await store.counts('default')).done >= JOBS) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await supervisor.stop({ graceMs: 1000 });
  client.close();
  await store.close();
  trace.disable();
  return { rate: JOBS / seconds, cpuUs: (used.user + used.system) / JOBS };
}

console.log(
  `tracingCost: ${JOBS} no-op jobs, concurrency 50, ${REPS} reps; ${cpus().length} x ${cpus()[0]?.model}, node ${process.version}`,
);
await runOnce('off', 0); // warm-up (JIT, connections), not counted
for (let rep = 1; rep <= REPS; rep++) {
  // Each rep starts the turn at another mode, so no mode always follows the same one.
  for (let k = 0; k < MODES.length; k++) {
    const mode = MODES[(k + rep) % MODES.length]!;
    results.get(mode)!.push(await runOnce(mode, rep));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const baseCpu = median(results.get('off')!.map((r) => r.cpuUs));
for (const mode of MODES) {
  const runs = results.get(mode)!;
  const rate = median(runs.map((r) => r.rate));
  const cpuUs = median(runs.map((r) => r.cpuUs));
  console.log(
    `${mode.padEnd(9)} ${rate.toFixed(0).padStart(6)} jobs/s | ${cpuUs.toFixed(1)} us CPU/job (${(((cpuUs - baseCpu) / baseCpu) * 100).toFixed(1)}% vs off) | runs jobs/s: ${runs.map((r) => r.rate.toFixed(0)).join(', ')}; us/job: ${runs.map((r) => r.cpuUs.toFixed(1)).join(', ')}`,
  );
}
await redis.stop();
