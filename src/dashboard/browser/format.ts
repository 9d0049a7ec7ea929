// Times and durations as people read them.

export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
  if (abs < 10_000) return `${sign}${(abs / 1000).toFixed(1)} s`;
  const s = Math.floor(abs / 1000);
  if (s < 60) return `${sign}${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${sign}${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${sign}${h} h ${m % 60} min`;
  return `${sign}${Math.floor(h / 24)} d ${h % 24} h`;
}

export function time(at: number | null | undefined): string {
  if (!at) return '–';
  const d = new Date(at);
  const today = new Date();
  const hms = d.toLocaleTimeString(undefined, { hour12: false });
  return d.toDateString() === today.toDateString() ? hms : `${d.toLocaleDateString()} ${hms}`;
}

export function stateText(state: unknown): string {
  if (state === null || state === undefined) return '–';
  if (typeof state === 'string') return state;
  return JSON.stringify(state);
}
