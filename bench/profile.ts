// Summarizes a V8 .cpuprofile: self time by function and by package, per job.

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** Written by bench/worker.ts: the wall clock (ms) when the profiler started. */
  wallStartMs?: number;
}

function packageOf(url: string, fn: string): string {
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(idle)') return 'idle';
  if (fn === '(program)') return 'V8/native (program)';
  if (!url) return 'native / builtins';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/src/')) return 'machinist src/' + (url.split('/src/')[1]?.split('/')[0] ?? '');
  if (url.includes('/machines/')) return 'machinist machines/';
  if (url.includes('/bench/')) return 'bench harness';
  return 'other';
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const i = url.search(/\/(src|machines|bench)\//);
  return i >= 0 ? url.slice(i + 1) : url;
}

/**
 * `window`: only the samples taken between these wall-clock times (ms; the profile must say when
 * it started, `wallStartMs`, as bench/worker.ts's do).
 */
export function analyzeProfile(
  file: string,
  jobs: number,
  top = 30,
  window?: { fromMs: number; toMs: number },
): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  if (window && p.wallStartMs === undefined) throw new Error(`${file}: no wallStartMs to read a window by`);
  let atUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    atUs += p.timeDeltas[i] ?? 0;
    if (window) {
      const at = p.wallStartMs! + atUs / 1000;
      if (at < window.fromMs || at > window.toMs) continue;
    }
    const id = p.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const fns = new Map<string, { us: number; pkg: string }>();
  const pkgs = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const pkg = packageOf(url, functionName);
    if (pkg === 'idle') {
      idle += us;
      continue;
    }
    total += us;
    const key = `${functionName || '(anonymous)'} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ''}`.trim();
    const f = fns.get(key) ?? { us: 0, pkg };
    f.us += us;
    fns.set(key, f);
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  }
  const lines: string[] = [
    `Busy ${(total / 1000).toFixed(0)} ms of main-thread samples (${(total / jobs).toFixed(1)} us/job), idle ${(idle / 1000).toFixed(0)} ms. Self time:`,
    '',
    '| package | us/job | share |',
    '|---|---:|---:|',
  ];
  for (const [pkg, us] of [...pkgs.entries()].sort((a, b) => b[1] - a[1])) {
    lines.push(`| ${pkg} | ${(us / jobs).toFixed(2)} | ${((us / total) * 100).toFixed(1)}% |`);
  }
  lines.push(
    '',
    `Top ${top} functions by self time:`,
    '',
    '| function | package | us/job | share |',
    '|---|---|---:|---:|',
  );
  for (const [key, f] of [...fns.entries()].sort((a, b) => b[1].us - a[1].us).slice(0, top)) {
    lines.push(
      `| \`${key}\` | ${f.pkg} | ${(f.us / jobs).toFixed(2)} | ${((f.us / total) * 100).toFixed(1)}% |`,
    );
  }
  return lines.join('\n');
}

/**
 * Total (self + callees) time of the functions named, summed over their call sites (a function
 * inside another of the list counts in both): where a loop's time goes, which self time hides.
 */
export function inclusiveTimes(file: string, names: string[]): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++)
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
  const totalOf = new Map<number, number>();
  const total = (id: number): number => {
    const known = totalOf.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id)!;
    let t = self.get(id) ?? 0;
    for (const c of n.children ?? []) t += total(c);
    totalOf.set(id, t);
    return t;
  };
  const want = new Set(names);
  const sums = new Map<string, number>();
  // Only the outermost frame of a name counts, so recursion is not summed twice.
  const walk = (id: number, inside: Set<string>): void => {
    const n = byId.get(id)!;
    const name = n.callFrame.functionName;
    let next = inside;
    if (want.has(name) && !inside.has(name)) {
      sums.set(name, (sums.get(name) ?? 0) + total(id));
      next = new Set(inside).add(name);
    }
    for (const c of n.children ?? []) walk(c, next);
  };
  walk(p.nodes[0]!.id, new Set());
  let busy = 0;
  for (const [id, us] of self) {
    const fn = byId.get(id)!.callFrame.functionName;
    if (fn !== '(idle)' && fn !== '(program)') busy += us;
  }
  return (
    names
      .map(
        (n) =>
          `${n} ${((sums.get(n) ?? 0) / 1000).toFixed(0)} ms (${(((sums.get(n) ?? 0) / busy) * 100).toFixed(1)}%)`,
      )
      .join('; ') + ` of ${(busy / 1000).toFixed(0)} ms busy`
  );
}
