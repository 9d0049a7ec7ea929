// `machinist enqueue <machine> [json|@file|-]`: adds a job and prints its id; with --wait, also
// waits for its result (exit 0 when done, 1 when it failed, was cancelled or did not finish in
// time), showing a live progress line (state, attempt, progress) on a terminal. With --jobs, the
// input is checked against the definition's input schema first (the Client's check). With
// --batch, many jobs from a file of one job a line (actions/enqueueBatch.ts).

import { Command } from 'commander';
import type { EnqueueOptions } from '../../client/validateEnqueue.js';
import { CliError, EXIT } from '../CliError.js';
import type { DedupeMode } from '../../store/types.js';
import type { CliBackend } from '../backend/CliBackend.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { value } from '../format.js';
import { loadJobs } from '../loadJobs.js';
import { integer, priority } from '../parseOptions.js';
import { readJson } from '../readInput.js';
import { printJob } from '../jobLines.js';

interface EnqueueCliOptions extends Omit<EnqueueOptions, 'dedupe'> {
  dedupeKey?: string;
  dedupeMode?: DedupeMode;
  dedupeTtlMs?: number;
  dedupeMaxDelayMs?: number;
  dedupeKeepLast?: boolean;
  wait?: number;
  json?: boolean;
  maxPayloadBytes?: number;
  jobs?: string;
  batch?: string;
}

/** Options that name one job, which a batch's lines give each for itself. */
const ONE_JOB_ONLY = [
  ['idempotencyKey', '--idempotency-key'],
  ['dedupeKey', '--dedupe-key'],
  ['dedupeMode', '--dedupe-mode'],
  ['dedupeTtlMs', '--dedupe-ttl-ms'],
  ['dedupeMaxDelayMs', '--dedupe-max-delay-ms'],
  ['dedupeKeepLast', '--dedupe-keep-last'],
] as const;

const PROGRESS_EVERY_MS = 250;

/**
 * Redraws one line on stderr while the job runs: its status, state, attempt and progress.
 * Only on a terminal; piped output gets nothing extra. Returns the function that stops it.
 */
function progressLine(backend: CliBackend, id: string, queue: string | undefined): () => void {
  const out = process.stderr;
  if (!out.isTTY) return () => {};
  let stopped = false;
  let shown = '';
  const draw = async () => {
    while (!stopped) {
      const job = await backend.get(id, queue).catch(() => null);
      if (stopped) break;
      if (job) {
        const line =
          `${job.status} ${value(job.state, 40)} attempt ${job.attempts}/${job.maxAttempts}` +
          (job.progress !== null && job.progress !== undefined ? ` progress ${value(job.progress, 60)}` : '');
        // A terminal that reports no width (0) gets 80 columns.
        const cut = line.slice(0, Math.max(20, (out.columns || 80) - 1));
        if (cut !== shown) out.write(`\r\x1b[2K${cut}`);
        shown = cut;
      }
      await new Promise((r) => setTimeout(r, PROGRESS_EVERY_MS));
    }
  };
  const running = draw();
  return () => {
    stopped = true;
    void running;
    if (shown) out.write('\r\x1b[2K');
  };
}

/**
 * Says on stderr that the input went unchecked when the machine declares an input schema (the
 * registry says so) but this command has not its code: the user learns of --jobs.
 */
async function warnUnchecked(backend: CliBackend, machine: string): Promise<void> {
  if (await backend.uncheckedSchema(machine).catch(() => false))
    console.error(
      `machinist: warning: '${machine}' declares an input schema, which was not checked (pass --jobs <module> to check it)`,
    );
}

export function enqueueCommand(globals: () => GlobalOptions): Command {
  return new Command('enqueue')
    .description(
      'enqueue a job of a machine a worker has registered; prints its id (with --batch, many jobs: their ids)',
    )
    .argument('[machine]', 'machine name (none with --batch)')
    .argument('[input]', 'the job input as JSON, @file to read it from a file, - for stdin')
    .option('-q, --queue <name>', 'queue', 'default')
    .option('-p, --priority <level>', 'critical | high | normal | low', priority)
    .option('--delay-ms <ms>', 'run no earlier than this many ms from now', integer(0))
    .option('--idempotency-key <key>', 'a second enqueue with the same key returns the first job')
    .option(
      '--partition-key <key>',
      'on a partitioned queue: jobs with one key go to one partition, in order (docs/partitions.md)',
    )
    .option('--dedupe-key <key>', 'collapse enqueues with this key into one job (docs/dedupe.md)')
    .option('--dedupe-mode <mode>', 'untilDone (default) | ttl | debounce')
    .option('--dedupe-ttl-ms <ms>', 'ttl: the window; debounce: the quiet period', integer(1))
    .option(
      '--dedupe-max-delay-ms <ms>',
      'debounce: run at most this long after the first enqueue',
      integer(1),
    )
    .option('--dedupe-keep-last', 'keep one pending job behind a started one, with the latest input')
    .option('--concurrency-key <key>', "the job's concurrency key: the queue's perKey limit applies per key")
    .option('--max-attempts <n>', 'runs in all, first included', integer(1))
    .option('--timeout-ms <ms>', 'per-attempt time limit for this job', integer(1))
    .option(
      '--record <mode>',
      "full | minimal: 'minimal' writes no audit log or stream entries and deletes the record as the job ends done",
    )
    .option(
      '--max-payload-bytes <n>',
      'largest input accepted (default 1 MiB; workers have their own limit)',
      integer(1),
    )
    .option(
      '--jobs <module>',
      'the definitions (as for `machinist worker`): the machine must be one of them, and the input is checked against its input schema',
    )
    .option(
      '--batch <file>',
      `many jobs, one a line, each a POST /jobs body ({"machine":"resize","input":{...},"priority":"high"}); - for stdin. all or nothing per 1000 jobs; the options above are defaults for fields a line leaves out`,
    )
    .option('--wait <ms>', 'wait up to this long for the result and print it', integer(1))
    .option(
      '--json',
      'with --wait: print the job record as JSON (with --batch: each id, or record, a JSON line)',
    )
    .action(async (machine: string | undefined, inputArg: string | undefined, opts: EnqueueCliOptions) => {
      if (opts.batch !== undefined) return enqueueBatchAction(globals(), machine, inputArg, opts);
      if (machine === undefined)
        throw new CliError('enqueue needs a machine name (or --batch <file>)', EXIT.usage);
      const input = await readJson(inputArg, 'input');
      const jobs = opts.jobs ? await loadJobs(opts.jobs) : undefined;
      await withBackend(
        globals(),
        async (backend) => {
          const options: EnqueueOptions = {
            queue: opts.queue,
            priority: opts.priority,
            delayMs: opts.delayMs,
            idempotencyKey: opts.idempotencyKey,
            partitionKey: opts.partitionKey,
            concurrencyKey: opts.concurrencyKey,
            maxAttempts: opts.maxAttempts,
            timeoutMs: opts.timeoutMs,
            record: opts.record,
          };
          // The Client checks the whole option (a mode without a key is refused there too).
          if (
            opts.dedupeKey !== undefined ||
            opts.dedupeMode !== undefined ||
            opts.dedupeTtlMs !== undefined ||
            opts.dedupeMaxDelayMs !== undefined ||
            opts.dedupeKeepLast !== undefined
          )
            options.dedupe = {
              key: opts.dedupeKey as string,
              mode: opts.dedupeMode,
              ttlMs: opts.dedupeTtlMs,
              maxDelayMs: opts.dedupeMaxDelayMs,
              keepLast: opts.dedupeKeepLast,
            };
          if (opts.wait === undefined) {
            const id = await backend.enqueue(machine, input, options);
            if (!jobs) await warnUnchecked(backend, machine);
            return void console.log(id);
          }
          // One step: the job is made with the wait's watch on it, so a job that ends at once (a
          // minimal record is deleted as it ends done) is still seen.
          const { id, result } = await backend.enqueueAndWait(machine, input, options, opts.wait);
          if (!jobs) await warnUnchecked(backend, machine);
          if (!opts.json) console.log(id);
          const stop = progressLine(backend, id, opts.queue);
          let job;
          try {
            job = await result;
          } finally {
            stop();
          }
          if (opts.json) console.log(JSON.stringify(job, null, 2));
          else printJob(job);
          if (job.status !== 'done') process.exitCode = EXIT.failed;
        },
        { maxPayloadBytes: opts.maxPayloadBytes, local: jobs },
      );
    });
}

/** `enqueue --batch`: the file read and checked line by line, then enqueued (actions/enqueueBatch.ts). */
async function enqueueBatchAction(
  globals: GlobalOptions,
  machine: string | undefined,
  inputArg: string | undefined,
  opts: EnqueueCliOptions,
): Promise<void> {
  if (machine !== undefined || inputArg !== undefined)
    throw new CliError(
      "--batch takes each job's machine and input from its line: give no arguments",
      EXIT.usage,
    );
  for (const [key, flag] of ONE_JOB_ONLY)
    if (opts[key] !== undefined)
      throw new CliError(`${flag} names one job: with --batch, set it on each line`, EXIT.usage);
  const { readBatch, enqueueBatch } = await import('../actions/enqueueBatch.js');
  const lines = await readBatch(opts.batch!, {
    queue: opts.queue,
    priority: opts.priority,
    delayMs: opts.delayMs,
    partitionKey: opts.partitionKey,
    concurrencyKey: opts.concurrencyKey,
    maxAttempts: opts.maxAttempts,
    timeoutMs: opts.timeoutMs,
    record: opts.record,
  });
  const jobs = opts.jobs ? await loadJobs(opts.jobs) : undefined;
  await withBackend(
    globals,
    async (backend) => {
      const code = await enqueueBatch(backend, opts.batch!, lines, opts);
      if (!jobs) for (const m of new Set(lines.map((l) => l.body.machine))) await warnUnchecked(backend, m);
      if (code !== EXIT.ok) process.exitCode = code;
    },
    { maxPayloadBytes: opts.maxPayloadBytes, local: jobs },
  );
}
