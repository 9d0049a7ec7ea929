// The inspection commands against a real redis-server and a real worker process: chart, status
// (tree, timers, accepted events, --watch), events --follow, send, and input from @file and stdin.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { RedisStore } from '../../src/index.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { runCli, spawnCli, type RunOptions } from '../support/cli.js';
import { parseStateDiagram } from '../support/mermaidStateDiagram.js';

const JOBS = 'test/cli/fixtures/cliJobs.ts';

describe('machinist chart, status, events, send', () => {
  let redis: TestRedis;
  let prefix: string;
  let store: RedisStore;
  let worker: ChildProcess | undefined;
  let workerOut = '';

  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) {
      const exited = new Promise((r) => worker!.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
    worker = undefined;
    await store?.close();
  });

  const cli = (args: string[], options?: RunOptions) =>
    runCli(['--redis', redis.url, '--prefix', prefix, ...args], options);

  async function startWorker(...args: string[]): Promise<void> {
    workerOut = '';
    worker = spawnCli(['--redis', redis.url, '--prefix', prefix, 'worker', '--jobs', JOBS, ...args]);
    worker.stdin!.end();
    worker.stdout!.on('data', (d: Buffer) => (workerOut += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (workerOut += d.toString()));
    await eventually(() => workerOut.includes('worker ready') || worker!.exitCode !== null, 20_000);
    assert.ok(workerOut.includes('worker ready'), workerOut);
  }

  function fresh(): void {
    prefix = uniquePrefix('inspect');
    store = new RedisStore({ url: redis.url, prefix });
  }

  it('charts a parked job with its waiting state lit, then sends the event that finishes it', async () => {
    fresh();
    await startWorker();
    const id = (await cli(['enqueue', 'approval', '{"documentId":"d1"}'])).stdout.trim();
    await eventually(async () => (await store.getJob(id))?.status === 'waiting', 15_000);

    const chart = await cli(['chart', id]);
    assert.equal(chart.code, 0, chart.stderr);
    const d = parseStateDiagram(chart.stdout);
    assert.deepEqual([...(d.classes.get('approval_awaitingDecision') ?? [])], ['active']);
    assert.deepEqual([...(d.classes.get('approval_requesting') ?? [])], ['visited']);
    assert.equal(d.classes.get('approval_published'), undefined);

    const status = await cli(['status', id]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^states\n {2}awaitingDecision$/m);
    assert.match(
      status.stdout,
      // The countdown rounds to the second: read within half a second of the park it says 24h 0m.
      /^timers\n {2}after deadline in approval\.awaitingDecision: due \S+ \(in (23h 59m|24h 0m)\)$/m,
    );
    assert.match(status.stdout, /^accepts\n {2}APPROVE, REJECT$/m);
    assert.match(status.stdout, /^last events/m);
    assert.match(status.stdout, /parked {2}\{"state":"awaitingDecision"/);

    const svg = await cli(['chart', id, '--format', 'svg']);
    assert.match(svg.stdout, /<g [^>]*data-state-id="approval\.awaitingDecision"[^>]*data-active="true"/);

    const bad = await cli(['send', id, '{"by":"ana"}']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'machinist: event must be a JSON object with a string "type"\n');
    const badJson = await cli(['send', id, '{"type":']);
    assert.equal(badJson.code, 2);
    assert.match(badJson.stderr, /^machinist: event is not valid JSON: /);

    const sent = await cli(['send', id, '-'], { stdin: '{"type":"APPROVE","by":"ana"}' });
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(sent.stdout, `sent APPROVE to ${id}\n`);
    await eventually(async () => (await store.getJob(id))?.status === 'done', 15_000);

    const done = parseStateDiagram((await cli(['chart', id])).stdout);
    assert.deepEqual([...(done.classes.get('approval_published') ?? [])], ['active']);
    assert.deepEqual([...(done.classes.get('approval_publishing') ?? [])], ['visited']);

    const finished = await cli(['send', id, '{"type":"APPROVE","by":"bo"}']);
    assert.equal(finished.code, 1);
    assert.match(finished.stderr, /^machinist: job \S+ has already finished \(done\) \[JOB_FINISHED\]\n$/);
  });

  it('charts machines from the registry and from --jobs, in every format', async () => {
    fresh();
    await startWorker();
    for (const target of ['approval', 'approval@1', 'echo']) {
      const r = await cli(['chart', target]);
      assert.equal(r.code, 0, r.stderr);
      parseStateDiagram(r.stdout);
    }
    const json = JSON.parse((await cli(['chart', 'approval', '--format', 'json'])).stdout) as {
      root: string;
    };
    assert.equal(json.root, 'approval');
    assert.match((await cli(['chart', 'echo', '--format', 'dot'])).stdout, /^digraph "echo@1" \{/);
    // Without Redis: the definitions come from the module.
    const offline = await runCli(['--redis', 'redis://127.0.0.1:1', 'chart', 'approval', '--jobs', JOBS]);
    assert.equal(offline.code, 0, offline.stderr);
    parseStateDiagram(offline.stdout);

    const unknown = await cli(['chart', 'nope']);
    assert.equal(unknown.code, 3);
    assert.equal(unknown.stderr, "machinist: no job machine named 'nope' is registered [UNKNOWN_MACHINE]\n");
    const version = await cli(['chart', 'approval@7']);
    assert.equal(version.code, 3);
    assert.match(version.stderr, /^machinist: machine 'approval' has no version 7 \(registered: 1\)/);
    const format = await cli(['chart', 'approval', '--format', 'png']);
    assert.equal(format.code, 2);
    assert.match(
      format.stderr,
      /^machinist: option '-f, --format <format>' argument 'png' is invalid\. Allowed choices are mermaid, dot, svg, json\.\n$/,
    );
  });

  it('follows a job live: status --watch and events --follow show each change and end when it finishes', async () => {
    fresh();
    await startWorker();
    const id = (await cli(['enqueue', 'approval', '{"documentId":"d2"}'])).stdout.trim();
    const live = (args: string[]) => {
      const child = spawnCli(['--redis', redis.url, '--prefix', prefix, ...args]);
      child.stdin!.end();
      const run = { out: '', err: '', code: new Promise<number | null>((r) => child.once('close', r)) };
      child.stdout!.on('data', (d: Buffer) => (run.out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (run.err += d.toString()));
      return run;
    };
    const watch = live(['status', id, '--watch', '--interval-ms', '100']);
    const follow = live(['events', id, '--follow', '--interval-ms', '100']);
    // Both are running and have shown the parked job before the event that finishes it is sent.
    await eventually(() => /^status\s+waiting$/m.test(watch.out) && follow.out.includes('parked'), 20_000);
    assert.equal((await cli(['send', id, '{"type":"APPROVE","by":"ana"}'])).code, 0);
    assert.equal(await watch.code, 0, watch.err);
    assert.equal(await follow.code, 0, follow.err);
    const views = watch.out.split(/\n\n(?=id )/);
    assert.ok(views.length >= 2, `one view per change:\n${watch.out}`);
    assert.match(views[views.length - 1]!, /^status\s+done$/m);
    const lines = follow.out.trim().split('\n');
    assert.equal(lines[lines.length - 1]!.split(/\s+/)[1], 'done', follow.out);
    assert.ok(lines.some((l) => l.includes('event-received')));
    assert.equal(new Set(lines).size, lines.length, 'no entry printed twice');
  });

  it('takes a few MB of input from @file and from stdin, which no argument could carry', async () => {
    fresh();
    const dir = mkdtempSync(join(tmpdir(), 'd-cli-'));
    const big = { blob: 'x'.repeat(3 * 1024 * 1024) };
    const file = join(dir, 'input.json');
    writeFileSync(file, JSON.stringify(big));
    // A registered machine is needed to enqueue: the worker publishes echo.
    await startWorker();
    const limit = ['--max-payload-bytes', String(8 * 1024 * 1024)];
    const fromFile = await cli(['enqueue', 'echo', `@${file}`, ...limit]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const fromStdin = await cli(['enqueue', 'echo', '-', ...limit], { stdin: { file } });
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    for (const id of [fromFile.stdout.trim(), fromStdin.stdout.trim()])
      assert.equal(((await store.getJob(id))?.input as { blob: string }).blob.length, big.blob.length);

    const tooBig = await cli(['enqueue', 'echo', `@${file}`]);
    assert.equal(tooBig.code, 2);
    assert.match(tooBig.stderr, /^machinist: .*1048576.*\[INVALID_INPUT\]\n$/);
    const missing = await cli(['enqueue', 'echo', `@${join(dir, 'nope.json')}`]);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, `machinist: cannot read ${join(dir, 'nope.json')}: ENOENT\n`);
    const badFile = join(dir, 'bad.json');
    writeFileSync(badFile, '{"a":');
    const bad = await cli(['enqueue', 'echo', `@${badFile}`]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, new RegExp(`^machinist: input from ${badFile} is not valid JSON: `));
  });
});
