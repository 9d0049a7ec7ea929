// Workloads 6 and 7: a 3-step pipeline (Machinist) against single-step no-op jobs (BullMQ), with
// the checkpoints written per job, and fan-out/fan-in flows against BullMQ's FlowProducer.

import { FlowProducer, QueueEvents } from 'bullmq';
import { Client, RedisStore } from '../../src/index.js';
import { decodeStreamEntries } from '../../src/store/redis/decodeEvents.js';
import {
  BULL_COMPLETED_KEY,
  FAN_CHILDREN,
  FAN_NAME,
  JOB_NAME,
  MACHINIST_DONE_KEY,
  MACHINIST_PREFIX,
  PIPELINE_NAME,
  PIPELINE_YIELD_NAME,
  QUEUE,
  type SystemName,
} from '../common.js';
import { BULK, FLOWS, N, REPS } from '../config.js';
import { log, orderFor, redis, spawnWorkers, waitDone } from '../harness.js';
import { fanMerge, threeSteps, threeStepsYield } from '../machines.js';
import { analyzeProfile } from '../profile.js';
import { fmt, row } from '../results.js';
import { openSide } from '../sides.js';
import { usedMemory } from '../redis.js';

/**
 * Checkpoints written per job: the `checkpoint` entries of the queue's event stream (one per
 * write) for the last `sample` jobs done. Not the audit log: it names every state a job
 * settled in, also those whose checkpoints coalesced into a later write.
 */
async function checkpointsPerJob(sample = 50): Promise<number> {
  const ids = new Set(await redis.ctl.zrange(MACHINIST_DONE_KEY, String(-sample), '-1'));
  const key = `${MACHINIST_PREFIX}:{${QUEUE}}:events`;
  const entries = (await redis.ctl.xrevrange(key, '+', '-', 'COUNT', 50_000)) as [string, string[]][];
  const writes = decodeStreamEntries([[key, entries]]).filter(
    (e) => e.type === 'checkpoint' && ids.has(e.jobId),
  ).length;
  return ids.size ? writes / ids.size : NaN;
}

export async function pipelineWorkload(): Promise<void> {
  log(
    `\n== 6. 3-step pipeline, a checkpoint per step (Machinist, ${N.toLocaleString('en-US')} jobs, c=100, 1 proc) vs BullMQ single-step no-op jobs`,
  );
  const metric = '3-step pipeline (M) vs single-step no-op (B), c=100';
  const yieldMetric =
    '3-step pipeline, steps yield: every checkpoint written (M) vs single-step no-op (B), c=100';
  const variants = [
    { name: PIPELINE_NAME, metric, def: threeSteps },
    { name: PIPELINE_YIELD_NAME, metric: yieldMetric, def: threeStepsYield },
  ];
  for (let rep = 0; rep < REPS; rep++) {
    for (const system of orderFor(rep)) {
      // BullMQ runs its single-step no-op once per repetition: the base of both Machinist rows.
      for (const v of system === 'machinist' ? variants : variants.slice(0, 1)) {
        await redis.ctl.flushall();
        // BENCH_PIPELINE_PROFILE=file: CPU profile of the Machinist pipeline worker, summarized here
        // (of the steps-yield variant with BENCH_PIPELINE_PROFILE_YIELD=1).
        const profiled = variants[process.env.BENCH_PIPELINE_PROFILE_YIELD === '1' ? 1 : 0];
        const prof =
          system === 'machinist' && v === profiled ? process.env.BENCH_PIPELINE_PROFILE : undefined;
        const workers = await spawnWorkers(system, 1, 100, prof, 'pipeline');
        try {
          if (system === 'machinist') {
            const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
            const client = new Client({ store, jobs: [v.def], queue: QUEUE });
            for (let done = 0; done < N; done += BULK)
              await client.enqueueMany(
                Array.from({ length: Math.min(BULK, N - done) }, () => ({ machine: v.name, input: {} })),
              );
            client.close();
            await store.close();
          } else {
            const side = openSide(system, redis);
            await side.enqueueBulk(N, BULK);
            await side.close();
          }
          const t0 = performance.now();
          workers.go();
          await waitDone(
            system === 'machinist' ? MACHINIST_DONE_KEY : BULL_COMPLETED_KEY,
            N,
            Math.max(120_000, N * 5),
          );
          const rate = N / ((performance.now() - t0) / 1000);
          if (system === 'machinist') {
            row('6', v.metric, 'jobs/s', 'higher').samples.machinist.push(rate);
            const cps = await checkpointsPerJob();
            row('6', `checkpoints written per job (${v.name})`, 'writes', 'lower').samples.machinist.push(
              cps,
            );
            log(
              `  rep ${rep + 1} machinist ${v.name.padEnd(15)} ${fmt(rate)} jobs/s, ${cps.toFixed(2)} checkpoints/job`,
            );
          } else {
            for (const m of [metric, yieldMetric]) row('6', m, 'jobs/s', 'higher').samples.bullmq.push(rate);
            log(`  rep ${rep + 1} ${system.padEnd(9)} ${fmt(rate)} jobs/s`);
          }
        } finally {
          await workers.stop();
        }
        if (prof) log(analyzeProfile(prof, N));
      }
    }
  }
}

/**
 * `flows` fan-out flows of `children` no-op children one after another, on a flushed Redis, one
 * worker process (c=100): each flow's time from enqueue to the parent's merged result, and the
 * Redis memory per child kept after (used_memory delta over all flows / children).
 */
export async function fanFlows(
  system: SystemName,
  children: number,
  flows: number,
): Promise<{ ms: number[]; memPerChildBytes: number }> {
  await redis.ctl.flushall();
  const workers = await spawnWorkers(system, 1, 100, undefined, 'fan');
  workers.go();
  const mem0 = await usedMemory(redis.ctl);
  const timeoutMs = Math.max(60_000, children * 3);
  const ms: number[] = [];
  try {
    if (system === 'machinist') {
      const store = new RedisStore({ url: redis.url, prefix: MACHINIST_PREFIX });
      const client = new Client({ store, jobs: [fanMerge], queue: QUEUE });
      for (let f = 0; f < flows; f++) {
        const t0 = performance.now();
        const id = await client.enqueue(FAN_NAME, { n: children });
        const rec = await client.waitForResult(id, { queue: QUEUE, timeoutMs });
        if (rec.status !== 'done' || rec.output !== children)
          throw new Error(`fan flow ended ${rec.status} with ${JSON.stringify(rec.output)}`);
        ms.push(performance.now() - t0);
      }
      client.close();
      await store.close();
    } else {
      const connection = { host: redis.host, port: redis.port };
      const producer = new FlowProducer({ connection });
      const events = new QueueEvents(QUEUE, { connection });
      await events.waitUntilReady();
      for (let f = 0; f < flows; f++) {
        const t0 = performance.now();
        const node = await producer.add({
          name: FAN_NAME,
          queueName: QUEUE,
          data: {},
          opts: { removeOnComplete: false },
          children: Array.from({ length: children }, (_, i) => ({
            name: JOB_NAME,
            queueName: QUEUE,
            data: i,
            opts: { removeOnComplete: false },
          })),
        });
        const out = await node.job.waitUntilFinished(events, timeoutMs);
        if (out !== children) throw new Error(`bullmq flow merged ${String(out)}`);
        ms.push(performance.now() - t0);
      }
      await events.close();
      await producer.close();
    }
  } finally {
    await workers.stop();
  }
  return { ms, memPerChildBytes: ((await usedMemory(redis.ctl)) - mem0) / (children * flows) };
}

export async function fanWorkload(): Promise<void> {
  log(
    `\n== 7. one parent -> ${FAN_CHILDREN.toLocaleString('en-US')} children -> merge (${FLOWS} flows one after another, c=100, 1 proc) vs a BullMQ FlowProducer flow`,
  );
  const metric = `fan-out/fan-in, ${FAN_CHILDREN.toLocaleString('en-US')} children`;
  for (let rep = 0; rep < REPS; rep++) {
    for (const system of orderFor(rep)) {
      const { ms } = await fanFlows(system, FAN_CHILDREN, FLOWS);
      const rate = (FLOWS * 1000) / ms.reduce((a, b) => a + b, 0);
      row('7', metric, 'flows/s', 'higher').samples[system].push(rate);
      log(
        `  rep ${rep + 1} ${system.padEnd(9)} ${rate.toFixed(2)} flows/s (${ms.map((x) => x.toFixed(0)).join(', ')} ms)`,
      );
    }
  }
}
