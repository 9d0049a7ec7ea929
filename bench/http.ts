// The HTTP row: POST /jobs against ONE `machinist serve` process (its own process, as deployed),
// driven by autocannon from this process, on a private redis-server.
//
//   npm run bench:http                 writes bench/RESULTS-http.md
//   BENCH_HTTP_SECONDS=5 ...           seconds per run (default 10)
//   BENCH_WRITE=0 ...                  print only
//
// Rows: POST /jobs at 50 and at 200 connections, and POST /jobs/batch of BATCH jobs a request at
// 50 (no worker: only the submit path is measured), then POST /jobs?wait=30s and
// POST /jobs/batch?wait=30s at 50 connections with a `machinist worker` running the jobs (a
// round trip: submit, run, result back to the waiting request). jobs/s is requests/s times the
// jobs a request carries.
//
//   BENCH_HTTP_BATCH=100 ...           jobs per POST /jobs/batch (default 100)

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startRedis, type PrivateRedis } from './redis.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 10);
const WRITE = process.env.BENCH_WRITE !== '0';
const TOKEN = 'bench-http-token';
const PREFIX = 'bench-http';
const BATCH = Number(process.env.BENCH_HTTP_BATCH ?? 100);
const ONE = { machine: 'noop', input: { n: 1 } };
const MANY = { jobs: Array.from({ length: BATCH }, (_, n) => ({ machine: 'noop', input: { n } })) };

interface Row {
  name: string;
  connections: number;
  requestsPerSec: number;
  jobsPerSec: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
}

/** Starts `machinist <args>` and resolves with its first stdout line matching `ready`. */
function startCli(
  redis: PrivateRedis,
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', '--redis', redis.url, '--prefix', PREFIX, ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, MACHINIST_TOKENS: TOKEN },
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolve({ child, line: m[0] });
    });
    child.once('exit', (code) => reject(new Error(`machinist ${args[0]} exited ${code}: ${out}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** `body` POSTed to `path` for SECONDS; `jobs`: how many jobs one request carries. */
async function load(
  url: string,
  name: string,
  path: string,
  connections: number,
  body: unknown = ONE,
  jobs = 1,
): Promise<Row> {
  const r = await autocannon({
    url: url + path,
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    connections,
    duration: SECONDS,
    timeout: 40,
  });
  const row: Row = {
    name,
    connections,
    requestsPerSec: Math.round(r.requests.average),
    jobsPerSec: Math.round(r.requests.average * jobs),
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r['2xx'] + r.non2xx,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
  console.log(JSON.stringify(row));
  return row;
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const children: ChildProcess[] = [];
  try {
    const server = await startCli(
      redis,
      ['serve', '--port', '0', '--jobs', 'bench/httpJobs.ts'],
      /listening on (http:\/\/\S+)/,
    );
    children.push(server.child);
    const url = /http:\/\/\S+/.exec(server.line)![0];
    // Warm-up (JIT, connections, scripts loaded), not measured.
    await autocannon({
      url: `${url}/jobs`,
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ machine: 'noop', input: null }),
      connections: 50,
      duration: 2,
    });
    const rows: Row[] = [];
    rows.push(await load(url, 'POST /jobs', '/jobs', 50));
    rows.push(await load(url, 'POST /jobs', '/jobs', 200));
    rows.push(await load(url, `POST /jobs/batch (${BATCH} jobs)`, '/jobs/batch', 50, MANY, BATCH));
    // The backlog left by the submit rows is dropped so the worker runs only the waited jobs.
    await redis.ctl.flushall();
    const worker = await startCli(
      redis,
      ['worker', '--jobs', 'bench/httpJobs.ts', '--concurrency', '200'],
      /worker ready/,
    );
    children.push(worker.child);
    rows.push(await load(url, 'POST /jobs?wait=30s (round trip, 1 worker process)', '/jobs?wait=30s', 50));
    rows.push(
      await load(
        url,
        `POST /jobs/batch?wait=30s (${BATCH} jobs, round trip, 1 worker process)`,
        '/jobs/batch?wait=30s',
        50,
        MANY,
        BATCH,
      ),
    );
    if (WRITE) writeResults(rows);
  } finally {
    for (const c of children.reverse()) await stopChild(c);
    await redis.stop();
  }
}

function writeResults(rows: Row[]): void {
  const cpu = cpus();
  const lines = [
    '# HTTP API bench',
    '',
    `Written by \`npm run bench:http\` (bench/http.ts) on ${new Date().toISOString().slice(0, 10)}: ` +
      `${cpu.length} x ${cpu[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. ` +
      `One \`machinist serve\` process, autocannon in the bench process, a private redis-server, ` +
      `all on this machine; ${SECONDS} s per row after a 2 s warm-up.`,
    '',
    '| workload | connections | requests/s | jobs/s | p50 ms | p99 ms | requests | non-2xx | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.connections} | ${r.requestsPerSec} | ${r.jobsPerSec} | ${r.p50} | ${r.p99} | ${r.total} | ${r.non2xx} | ${r.errors} |`,
    ),
    '',
  ];
  writeFileSync(join(HERE, 'RESULTS-http.md'), lines.join('\n'));
  console.log('wrote bench/RESULTS-http.md');
}

await main();
