// The worker's log: pino, as JSON lines when piped (or --log-format json), as short readable
// lines on a terminal. The readable form is a few lines of our own rather than pino-pretty: one
// dependency less, and only the fields that help a person reading along.
//   12:04:31.118 INFO  job 01J… (resize) done in 41 ms
//   12:04:33.002 WARN  Redis at 127.0.0.1:6379 is unreachable; retrying until it is back

import { pino, type Logger } from 'pino';

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line has. */
const QUIET = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** One readable line for a pino JSON record. */
export function readableLine(json: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const t = new Date(typeof rec.time === 'number' ? rec.time : Date.now());
  const time = `${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}.${pad(t.getMilliseconds(), 3)}`;
  const level = (LEVELS[rec.level as number] ?? String(rec.level)).padEnd(5);
  const msg = typeof rec.msg === 'string' ? rec.msg : '';
  const extra: string[] = [];
  for (const [k, v] of Object.entries(rec)) {
    if (QUIET.has(k) || v === undefined) continue;
    // What the message says already (the job id, the address) is not repeated.
    if ((typeof v === 'string' || typeof v === 'number') && msg.includes(String(v))) continue;
    if (k === 'err' && v && typeof v === 'object') {
      const message = (v as { message?: unknown }).message;
      extra.push(`err="${typeof message === 'string' ? message : ''}"`);
      continue;
    }
    extra.push(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  return `${time} ${level} ${msg}${extra.length ? `  ${extra.join(' ')}` : ''}`;
}

export type LogFormat = 'json' | 'pretty';

/** The worker's logger: `format` defaults to pretty on a terminal and JSON otherwise. */
export function workerLogger(level: string, format: LogFormat | undefined, out = process.stdout): Logger {
  const pretty = (format ?? (out.isTTY ? 'pretty' : 'json')) === 'pretty';
  if (!pretty) return pino({ name: 'machinist', level }, out);
  return pino(
    { name: 'machinist', level },
    { write: (line: string) => void out.write(`${readableLine(line)}\n`) },
  );
}
