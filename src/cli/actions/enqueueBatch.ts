// What `machinist enqueue --batch <file.ndjson|->` does (its options: commands/enqueue.ts): one job
// a line, each a POST /jobs body ({ "machine", "input", options }), enqueued all or nothing per
// request of at most MAX_BATCH_JOBS (POST /jobs/batch over --url, Client.enqueueManyWithInfo on
// --redis). Prints the ids in line order; with --wait, each job's end, exit 1 unless all are done.

import type { CliBackend } from '../backend/CliBackend.js';
import type { EnqueueOptions } from '../../client/validateEnqueue.js';
import type { JobRecord } from '../../store/types.js';
import { asEnqueueBody, type EnqueueBody } from '../../http/enqueueBody.js';
import { MAX_BATCH_JOBS } from '../../http/schemas.js';
import { MachinistError } from '../../errors.js';
import { CliError, EXIT } from '../CliError.js';
import { inputText } from '../readInput.js';
import { errorLine, value } from '../format.js';

/** One job of the file, and the line it came from (for errors). */
interface BatchLine {
  line: number;
  body: EnqueueBody;
}

/**
 * The file's jobs (blank lines skipped), each a job body with the command's options as the
 * defaults for the fields it leaves out. A line that is not JSON, or not a job, is a usage error
 * naming it, before anything is sent.
 */
export async function readBatch(source: string, defaults: EnqueueOptions): Promise<BatchLine[]> {
  const { text, from } = await inputText(source === '-' ? '-' : `@${source}`);
  const set = Object.fromEntries(Object.entries(defaults).filter(([, v]) => v !== undefined));
  const jobs: BatchLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const where = `${from} line ${i + 1}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new CliError(`${where} is not valid JSON: ${(err as Error).message}`, EXIT.usage);
    }
    try {
      jobs.push({ line: i + 1, body: { ...set, ...asEnqueueBody(parsed) } });
    } catch (err) {
      throw new CliError(`${where}: ${(err as Error).message}`, EXIT.usage);
    }
  });
  if (jobs.length === 0) throw new CliError(`${from} holds no jobs`, EXIT.usage);
  return jobs;
}

/** `err` from a batch's request, said of the line of the job it names (`index`, or `jobs.<n>.…`). */
function atLine(err: unknown, chunk: readonly BatchLine[], from: string): unknown {
  if (!(err instanceof MachinistError)) return err;
  const index = err.index ?? Number(/^jobs\.(\d+)/.exec(err.field ?? '')?.[1] ?? NaN);
  const job = chunk[index];
  if (job === undefined) return err;
  return new CliError(
    `${from} line ${job.line}: ${err.message} [${err.code}]`,
    err.code === 'UNKNOWN_MACHINE' ? EXIT.notFound : EXIT.failed,
  );
}

/** Consecutive runs of at most MAX_BATCH_JOBS jobs, each one request (one all-or-nothing step). */
function chunks<T>(all: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < all.length; i += MAX_BATCH_JOBS) out.push(all.slice(i, i + MAX_BATCH_JOBS));
  return out;
}

/**
 * Enqueues the file's jobs, in order, a chunk at a time; prints each id as its chunk is stored
 * (so a refused chunk leaves the ids of those before it printed). Returns the exit code.
 */
export async function enqueueBatch(
  backend: CliBackend,
  source: string,
  jobs: readonly BatchLine[],
  opts: { wait?: number; json?: boolean },
): Promise<number> {
  const from = source === '-' ? 'stdin' : source;
  if (opts.wait === undefined) {
    for (const chunk of chunks(jobs)) {
      const infos = await backend.enqueueMany(chunk.map((j) => j.body)).catch((err: unknown) => {
        throw atLine(err, chunk, from);
      });
      for (const info of infos)
        console.log(opts.json ? JSON.stringify({ id: info.id, deduplicated: info.deduplicated }) : info.id);
    }
    return EXIT.ok;
  }
  // One deadline for the whole file: a later chunk waits for what is left of it.
  const end = Date.now() + opts.wait;
  const waited: { id: string; result: Promise<JobRecord> }[] = [];
  for (const chunk of chunks(jobs)) {
    const infos = await backend
      .enqueueManyAndWait(
        chunk.map((j) => j.body),
        Math.max(1, end - Date.now()),
      )
      .catch((err: unknown) => {
        throw atLine(err, chunk, from);
      });
    waited.push(...infos);
  }
  const ends = await Promise.allSettled(waited.map((w) => w.result));
  let code: number = EXIT.ok;
  waited.forEach((w, i) => {
    const e = ends[i]!;
    if (e.status === 'rejected' || e.value.status !== 'done') code = EXIT.failed;
    if (opts.json) {
      console.log(
        JSON.stringify(
          e.status === 'fulfilled'
            ? e.value
            : {
                id: w.id,
                finished: false,
                error: {
                  code: (e.reason as MachinistError).code,
                  message: String((e.reason as Error).message),
                },
              },
        ),
      );
    } else if (e.status === 'fulfilled') {
      const job = e.value;
      const tail = job.status === 'done' ? value(job.output, 200) : errorLine(job.error);
      console.log(`${w.id} ${job.status} ${tail}`);
    } else {
      console.log(`${w.id} not finished: ${(e.reason as Error).message}`);
    }
  });
  return code;
}
