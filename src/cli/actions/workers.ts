// What `machinist workers` does (commands/workers.ts): a row per supervisor, then what each live
// one runs and the jobs the reaper took back from each gone one.

import { withBackend, type GlobalOptions } from '../connect.js';
import { json, table } from '../format.js';

/** An age as people read it: 850ms, 12s, 4m, 2h. */
export function age(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)}m`;
  return `${Math.round(ms / 3_600_000)}h`;
}

export async function runWorkers(globals: GlobalOptions, opts: { json?: boolean }): Promise<void> {
  await withBackend(globals, async (backend) => {
    const fleet = await backend.workers();
    if (opts.json) return void console.log(json(fleet));
    if (fleet.length === 0)
      return void console.log(`no supervisors seen in the last hour (${backend.where})`);
    const rows = fleet.map((w) => [
      w.workerId,
      w.status,
      w.host,
      String(w.pid),
      w.version,
      w.queues.join(','),
      `${w.runningCount}/${w.concurrency}`,
      age(w.heartbeatAgeMs),
    ]);
    console.log(
      table(['WORKER', 'STATUS', 'HOST', 'PID', 'VERSION', 'QUEUES', 'RUNNING', 'HEARTBEAT'], rows),
    );
    for (const w of fleet) {
      if (w.status === 'live' && w.running.length > 0)
        console.log(
          `\n${w.workerId} runs: ${w.running.map((r) => `${r.id} (${r.machine ?? '?'})`).join(', ')}`,
        );
      if (w.reaped.length > 0)
        console.log(
          `\n${w.workerId}: ${w.reaped.length} job(s) taken back by the reaper: ` +
            w.reaped.map((r) => `${r.id} ${r.outcome}`).join(', '),
        );
    }
  });
}
