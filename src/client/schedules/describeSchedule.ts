// A schedule in words (cronstrue), for the API, the CLI and the dashboard.

import cronstrue from 'cronstrue';
import type { ScheduleSpec } from './scheduleSpec.js';

function durationText(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) if (ms % size === 0) return ms === size ? name : `${ms / size} ${name}s`;
  return `${ms} ms`;
}

/** E.g. "At 02:30 (Europe/Rome)", "Every 5 seconds". */
export function describeSchedule(spec: ScheduleSpec): string {
  if (spec.everyMs !== undefined) return `Every ${durationText(spec.everyMs)}`;
  let text: string;
  try {
    text = cronstrue.toString(spec.cron!, { use24HourTimeFormat: true, verbose: false });
  } catch {
    text = spec.cron!;
  }
  return spec.timezone === 'UTC' ? `${text} (UTC)` : `${text} (${spec.timezone})`;
}
