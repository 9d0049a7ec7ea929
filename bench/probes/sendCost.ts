// Probe: what a Client.send costs its caller, one send after another (issue 25, round thirteen):
// N pipelines enqueued (no worker runs them, so each stays queued and takes the event into its
// inbox), then an event sent to each in turn, with the queue named and without; this process's
// wall time and CPU per send, on a private redis-server. INPUT_KB: each job's input is that big
// (a send that read the record to find the queue had it all sent back).
//
//   npm run build && node --import tsx --import ./bench/fromDist.mjs bench/probes/sendCost.ts [N=5000] [INPUT_KB=0]

import { setup } from 'xstate';
import { Client, RedisStore, definePipeline } from '../../src/index.js';
import { spawnRedisServer } from '../../examples/privateRedis.js';

const N = Number(process.argv[2] ?? 5_000);
const INPUT = { blob: 'x'.repeat(Number(process.argv[3] ?? 0) * 1024) };
const waitsForGo = definePipeline({
  name: 'waitsForGo',
  machine: setup({ types: { events: {} as { type: 'GO' } } }).createMachine({
    initial: 'waiting',
    states: { waiting: { on: { GO: 'end' } }, end: { type: 'final' } },
  }),
});

const server = await spawnRedisServer();
const store = new RedisStore({ url: server.url, prefix: 'sc' });
const client = new Client({ store, jobs: [waitsForGo] });
try {
  const ids: string[] = [];
  for (let i = 0; i < 2 * N; i += 1000)
    ids.push(
      ...(await client.enqueueMany(
        Array.from({ length: 1000 }, () => ({ machine: 'waitsForGo', input: INPUT })),
      )),
    );
  await client.send(ids.pop()!, { type: 'GO' }, { queue: 'default' }); // warm
  for (const [label, options] of [
    ['queue named', { queue: 'default' }],
    ['no queue', {}],
  ] as const) {
    const batch = ids.splice(0, N);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const id of batch) await client.send(id, { type: 'GO' }, options);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    console.log(
      `${label}: ${N} sends, input ${INPUT.blob.length / 1024} KB, ${((ms * 1000) / N).toFixed(1)} us wall and ${((c.user + c.system) / N).toFixed(1)} us CPU a send (node ${process.version})`,
    );
  }
} finally {
  client.close();
  await store.close();
  await server.stop('SIGKILL');
}
