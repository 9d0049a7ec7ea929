// Times and durations as people read them.

export function duration(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  const neg = ms < 0;
  let s = Math.abs(ms) / 1000;
  let out: string;
  if (s < 1) out = `${Math.round(s * 1000)} ms`;
  else if (s < 60) out = `${s.toFixed(s < 10 ? 1 : 0)} s`;
  else if ((s /= 60) < 60) out = `${Math.floor(s)} min ${Math.round((s % 1) * 60)} s`;
  else if ((s /= 60) < 48) out = `${Math.floor(s)} h ${Math.round((s % 1) * 60)} min`;
  else out = `${Math.floor(s / 24)} d ${Math.round(s % 24)} h`;
  return neg ? `-${out}` : out;
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
