// `npm run demo`: a supervisor and a client against Redis (REDIS_URL, else 127.0.0.1:6379, else
// a private redis-server it starts), a handful of jobs with priorities, a readable summary.
// Everything lives under a fresh key prefix, deleted at the end (MACHINIST_DEMO_KEEP=1 keeps it).

import { Client, RedisStore, Supervisor, type JobRecord } from '../src/index.js';
import jobs from './jobs.js';
import { useOrStartRedis, type DemoRedis } from './privateRedis.js';
import { table } from '../src/cli/format.js';

const WATCHDOG_MS = 20_000;

function describeResult(job: JobRecord): string {
  if (job.status === 'done') return JSON.stringify(job.output);
  if (job.error) return `${job.error.code ?? job.error.name}: ${job.error.message}`;
  return job.status === 'cancelled' ? 'cancelled before it ran' : '-';
}

async function deletePrefix(store: RedisStore): Promise<number> {
  let cursor = '0';
  let n = 0;
  do {
    const [next, keys] = await store.redis.scan(cursor, 'MATCH', `${store.prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) n += await store.redis.del(...keys);
  } while (cursor !== '0');
  return n;
}

async function main(): Promise<void> {
  const wanted = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const redis: DemoRedis = await useOrStartRedis(wanted);
  const prefix = `machinist-demo-${Date.now().toString(36)}${process.pid.toString(36)}`;
  console.log(
    redis.private
      ? `Redis at ${wanted} is not reachable: started a private redis-server at ${redis.url}`
      : `Using Redis at ${redis.url}`,
  );
  console.log(`Key prefix: ${prefix}\n`);

  const store = new RedisStore({ url: redis.url, prefix });
  const supervisor = new Supervisor({
    store,
    jobs,
    concurrency: 2,
    leaseMs: 5_000,
    heartbeatMs: 1_000,
    reaperIntervalMs: 1_000,
  });
  const client = new Client({ store, jobs });
  try {
    // Enqueued before the supervisor starts, so the claim order shows the priorities.
    const plan = [
      {
        machine: 'resize-image',
        input: { image: 'photos/beach.jpg', width: 640 },
        options: { priority: 'low' },
      },
      { machine: 'send-email', input: { to: 'ada@example.com', template: 'welcome' } },
      {
        machine: 'charge-card',
        input: { customer: 'ada', card: '4242424242424242', cents: 1299 },
        options: { priority: 'high' },
      },
      {
        machine: 'charge-card',
        input: { customer: 'bob', card: '4000000000000002', cents: 4999 },
        options: { priority: 'high' },
      },
      { machine: 'deliver-webhook', input: { url: 'https://hooks.example.com/orders', failTimes: 2 } },
      {
        machine: 'resize-image',
        input: { image: 'photos/hero.png', width: 1280 },
        options: { priority: 'critical' },
      },
      {
        machine: 'send-email',
        input: { to: 'bob@example.com', template: 'reminder' },
        options: { delayMs: 60_000, idempotencyKey: 'reminder-bob' },
      },
    ] as const;
    const ids = await client.enqueueMany(
      plan.map((p) => ({ ...p, options: { ...('options' in p ? p.options : {}) } })),
    );
    const reminderId = ids[ids.length - 1]!;
    console.log(`Enqueued ${ids.length} jobs; starting a supervisor (concurrency 2)...`);
    await supervisor.start();

    // The reminder is delayed a minute: cancel it instead of waiting.
    await client.cancel(reminderId);
    const results = await Promise.all(ids.map((id) => client.waitForResult(id, { timeoutMs: 15_000 })));

    console.log('\nResults');
    const rows = results.map((job, i) => [
      job.id.slice(-8),
      job.machine,
      job.priority,
      job.status,
      String(job.attempts),
      (plan[i] && 'options' in plan[i] && 'delayMs' in plan[i].options ? 'delayed 60 s: ' : '') +
        describeResult(job),
    ]);
    console.log(
      table(['JOB', 'MACHINE', 'PRIORITY', 'STATUS', 'ATTEMPTS', 'OUTPUT / ERROR'], rows, { rule: true }),
    );

    // The queue's event stream records every claim in order: critical, then high, normal, low.
    const claimOrder = (await store.readEvents('default', '0-0', 0, 1000))
      .filter((e) => e.type === 'claimed')
      .map((e) => {
        const job = results.find((r) => r.id === e.jobId);
        return job ? `${job.machine}(${job.priority})` : e.jobId;
      });
    console.log(`\nClaim order: ${claimOrder.join(' -> ')}`);

    const webhook = results.find((r) => r.machine === 'deliver-webhook')!;
    const log = await client.events(webhook.id);
    console.log(
      `\nAudit log of ${webhook.machine} ${webhook.id} (fails twice, retries with backoff, succeeds):`,
    );
    for (const { at, type, ...rest } of log) {
      const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
      console.log(`  +${String(at - log[0]!.at).padStart(5)} ms  ${type}${extra}`);
    }

    const dead = await client.deadLetters();
    console.log(
      `\nDead letters: ${dead.map((d) => `${d.machine} ${d.id.slice(-8)} (${d.error?.code})`).join(', ') || 'none'}`,
    );
  } finally {
    const stopped = await supervisor.stop({ graceMs: 5_000 });
    console.log(
      `\nSupervisor stopped (${stopped.forced ? `forced, ${stopped.requeued} requeued` : 'drained'}).`,
    );
    client.close();
    if (process.env.MACHINIST_DEMO_KEEP) {
      console.log(
        `Kept the demo's keys: try  npx machinist --redis ${redis.url} --prefix ${prefix} ls --status done`,
      );
    } else {
      await deletePrefix(store);
    }
    await store.close();
    await redis.stop();
  }
}

const watchdog = setTimeout(() => {
  console.error(`demo: did not finish within ${WATCHDOG_MS / 1000} s`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  () => clearTimeout(watchdog),
  (err: unknown) => {
    console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
