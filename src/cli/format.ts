// How the CLI shows jobs and values on a terminal: times as ISO strings, values as compact JSON,
// lists as aligned columns.

import type { JobRecord } from '../store/types.js';

export function time(ms: number | null | undefined): string {
  return ms ? new Date(ms).toISOString() : '-';
}

/** Compact JSON, cut to `max` characters so one value cannot flood the terminal. */
export function value(v: unknown, max = 200): string {
  if (v === undefined || v === null) return '-';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function errorLine(e: JobRecord['error']): string {
  if (!e) return '-';
  return `${e.name}${e.code ? ` [${e.code}]` : ''}: ${e.message}`;
}

/** Left-aligned columns, two spaces apart; `rule` adds a line of dashes under the header. */
export function table(header: string[], rows: string[][], options: { rule?: boolean } = {}): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = options.rule ? [line(widths.map((w) => '-'.repeat(w)))] : [];
  return [line(header), ...rule, ...rows.map(line)].join('\n');
}

export function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}
