// What `machinist dev` (`npm start`) does (its options: commands/dev.ts): Machinist on one machine
// with nothing installed. The HTTP API, the dashboard (with its actions: this is for trying things)
// and a worker for the example pipelines of machines/demo.ts, and a few demo jobs to look at. That
// module is loaded by path, as `worker --jobs` loads a user's (loadJobs.ts): src/ imports no demo
// code (the layer rule in .dependency-cruiser.cjs). With REDIS_URL set (or --redis given, whatever
// its value) it uses that Redis; without either the embedded MemoryStore, which --data keeps in a
// file across restarts. Ctrl-C stops it (runServer.ts).

import { MemoryStore } from '../../store/memory/MemoryStore.js';
import type { Store } from '../../store/types.js';
import type { AnyDefinition } from '../../runtime/registry.js';
import type { ScheduleOptions } from '../../client/schedules/scheduleSpec.js';
import { Client } from '../../client/Client.js';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CliError, EXIT } from '../CliError.js';
import { loadJobs } from '../loadJobs.js';
import { openStore, redisLabel, type GlobalOptions } from '../connect.js';
import { cliLine } from '../cliLine.js';
import { workerLogger } from '../logOutput.js';
import { listenAddress, runServer } from '../runServer.js';

export interface DevOptions {
  port?: number;
  host?: string;
  data?: string;
  /** commander's `--no-seed`. */
  seed: boolean;
  webhookAllowHosts?: string[];
}

const QUEUE = 'default';

/** A job to enqueue at start, as machines/demo.ts lists them (`devSeed`). */
interface SeedJob {
  machine: string;
  input: unknown;
  note: string;
}

/**
 * machines/demo.ts beside this package's src/: the .ts under tsx (`npm start`), the built .js
 * in dist/ (`machinist dev` installed), the same way round as this file.
 */
function demoModulePath(): string {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`../../../machines/demo${ext}`, import.meta.url));
}

/** A schedule to make at start, as machines/demo.ts lists them (`devSchedules`). */
interface SeedSchedule {
  id: string;
  spec: ScheduleOptions;
  note: string;
}

/** The demo's definitions, loaded as any --jobs module is, and the jobs and schedules it makes at start. */
async function loadDemo(): Promise<{ jobs: AnyDefinition[]; seed: SeedJob[]; schedules: SeedSchedule[] }> {
  const file = demoModulePath();
  const jobs = await loadJobs(file);
  // The module loadJobs has just imported (one module instance per URL).
  const mod = (await import(pathToFileURL(file).href)) as {
    devSeed?: SeedJob[];
    devSchedules?: SeedSchedule[];
  };
  return { jobs, seed: mod.devSeed ?? [], schedules: mod.devSchedules ?? [] };
}

export async function runDev(globals: GlobalOptions, opts: DevOptions): Promise<void> {
  if (globals.urlFlag)
    throw new CliError("--url reaches a running server's API; `dev` starts one itself", EXIT.usage);
  const address = listenAddress(opts);
  const { jobs: devJobs, seed: devSeed, schedules: devSchedules } = await loadDemo();
  let store: Store;
  if (globals.redisChosen) {
    store = await openStore(globals, true);
    console.log(`machinist dev: Redis at ${redisLabel(globals)}, prefix '${globals.prefix}'`);
  } else {
    store = new MemoryStore({ dataFile: opts.data });
    console.log(
      `machinist dev: no REDIS_URL: using the embedded in-memory store (${
        opts.data ? `kept in ${opts.data}` : 'jobs are lost at exit; --data <file> keeps them'
      })`,
    );
  }
  const client = new Client({ store, jobs: devJobs, queue: QUEUE });
  const { url } = await runServer({
    name: 'dev',
    address,
    anyPortIfTaken: !address.portGiven,
    store,
    jobs: devJobs,
    queue: QUEUE,
    dashboard: { actions: true, title: 'Machinist (dev)' },
    worker: {
      concurrency: 10,
      graceMs: 5_000,
      logger: workerLogger(process.env.MACHINIST_LOG || 'info', undefined),
      webhookAllowHosts: opts.webhookAllowHosts,
    },
    close: async () => {
      client.close();
      await store.close();
    },
  });
  const base = url.replace(/\/$/, '');
  console.log(`machinist dev: dashboard at ${base}/  (API: ${base}/openapi.json; Ctrl-C stops)`);
  // The CLI reaches this process's jobs only through its API (the embedded store is in here).
  const token = address.tokens.length > 0 ? ' --token <a token of MACHINIST_TOKENS>' : '';
  console.log(`machinist dev: the CLI on these jobs: ${cliLine()} --url ${base}${token} ls`);
  // A store that kept jobs from an earlier run (--data, a Redis) is not seeded again.
  const kept = Object.values(await store.counts(QUEUE)).reduce((a, b) => a + b, 0);
  if (!opts.seed || kept > 0) return;
  for (const s of devSeed) {
    const id = await client.enqueue(s.machine as never, s.input);
    console.log(`machinist dev: ${s.machine} ${base}/#/job/${id}  ${s.note}`);
  }
  for (const s of devSchedules) {
    await client.schedule(s.id, s.spec);
    console.log(`machinist dev: schedule ${s.id} ${base}/#/schedules  ${s.note}`);
  }
}
