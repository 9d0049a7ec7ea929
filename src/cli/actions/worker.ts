// What `machinist worker` does (its options: commands/worker.ts): runs a Supervisor for the jobs
// a module exports until SIGTERM or SIGINT.
//
// Shutdown: the first signal stops claiming and gives running jobs --grace-ms to finish; what is
// still running then is requeued at once (not after lease expiry). A second signal forces at
// once. Exit code 0 when everything drained in time, 143 (128 + SIGTERM) when jobs were forced.

import { Supervisor } from '../../supervisor/Supervisor.js';
import { openStore, redisLabel, type GlobalOptions } from '../connect.js';
import { loadJobs } from '../loadJobs.js';
import { CliError } from '../CliError.js';
import { MachinistMetrics } from '../../metrics/MachinistMetrics.js';
import { startMetricsServer, type MetricsServer } from '../../metrics/metricsServer.js';
import { workerLogger, type LogFormat } from '../logOutput.js';

export interface WorkerOptions {
  jobs: string;
  queue: string;
  concurrency: number;
  leaseMs: number;
  heartbeatMs: number;
  reaperIntervalMs?: number;
  maxLeaseRequeues?: number;
  graceMs: number;
  allowEviction?: boolean;
  acceptChangedMachines?: string[];
  metricsPort?: number;
  metricsHost: string;
  maxPayloadBytes?: number;
  webhookAllowHosts?: string[];
  logFormat?: LogFormat;
  logLevel: string;
}

export const EXIT_FORCED = 143;
/** Past the grace period, how long stop() may take before the process exits regardless. */
const STOP_OVERRUN_MS = 10_000;

export async function runWorker(globals: GlobalOptions, opts: WorkerOptions): Promise<void> {
  const jobs = await loadJobs(opts.jobs);
  const store = await openStore(globals, true);
  let supervisor: Supervisor;
  const metrics =
    opts.metricsPort !== undefined ? new MachinistMetrics({ store, queues: [opts.queue] }) : undefined;
  try {
    supervisor = new Supervisor({
      observers: metrics ? [metrics] : [],
      store,
      jobs,
      queue: opts.queue,
      concurrency: opts.concurrency,
      leaseMs: opts.leaseMs,
      heartbeatMs: opts.heartbeatMs,
      reaperIntervalMs: opts.reaperIntervalMs,
      maxLeaseRequeues: opts.maxLeaseRequeues,
      allowEviction: opts.allowEviction,
      acceptChangedMachines: opts.acceptChangedMachines,
      maxPayloadBytes: opts.maxPayloadBytes,
      webhookAllowHosts: opts.webhookAllowHosts,
      // Job starts and ends at info, Redis outages at warn (logConnectionChanges) and back at info.
      logger: workerLogger(opts.logLevel, opts.logFormat),
      // One job's stray error fails that job, not the worker and every job in it.
      isolateStrayErrors: true,
    });
  } catch (err) {
    await store.close();
    throw new CliError((err as Error).message);
  }

  // Handlers go in before start() so a signal during startup is not the default (instant death).
  let signals = 0;
  let metricsServer: MetricsServer | undefined;
  // The metrics port closes with the worker: a scrape after the drain finds nothing listening.
  const finish = (code: number) => {
    void Promise.allSettled([metricsServer?.close(), store.close()]).finally(() => process.exit(code));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) {
      console.error(`machinist worker: ${signal}: stopping (grace ${opts.graceMs} ms)`);
      setTimeout(() => {
        console.error('machinist worker: stop did not complete; exiting');
        process.exit(EXIT_FORCED);
      }, opts.graceMs + STOP_OVERRUN_MS).unref();
      void supervisor.stop({ graceMs: opts.graceMs }).then(
        (r) => {
          if (signals > 1) return; // the forced stop below exits
          console.error(
            r.forced
              ? `machinist worker: forced; requeued ${r.requeued} job(s)`
              : 'machinist worker: drained',
          );
          finish(r.forced ? EXIT_FORCED : 0);
        },
        (err: unknown) => {
          console.error(`machinist worker: stop failed: ${(err as Error).message}`);
          finish(1);
        },
      );
    } else if (signals === 2) {
      console.error(`machinist worker: ${signal} again: forcing`);
      void supervisor.stop({ graceMs: 0 }).then(
        (r) => {
          console.error(`machinist worker: forced; requeued ${r.requeued} job(s)`);
          finish(EXIT_FORCED);
        },
        () => finish(EXIT_FORCED),
      );
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    await supervisor.start();
  } catch (err) {
    await store.close();
    throw new CliError(`worker failed to start: ${(err as Error).message}`);
  }
  if (metrics) {
    try {
      metricsServer = await startMetricsServer({ metrics, port: opts.metricsPort!, host: opts.metricsHost });
    } catch (err) {
      await supervisor.stop({ graceMs: 0 });
      await store.close();
      throw new CliError(
        `worker could not serve metrics on port ${opts.metricsPort}: ${(err as Error).message}`,
      );
    }
    console.log(`machinist worker metrics: ${metricsServer.url}/metrics`);
  }
  const names = jobs.map((d) => `${d.name}@${d.version}`).join(', ');
  console.log(
    `machinist worker ready: queue '${opts.queue}', concurrency ${opts.concurrency}, machines ${names}; ` +
      `redis ${redisLabel(globals)} prefix '${globals.prefix}' (worker ${supervisor.workerId})`,
  );
}
