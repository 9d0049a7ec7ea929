// The lines that say what a run ran on: CPU, Node, Redis, package versions, git commit, settings.

import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { AOF_LABEL, AOF_MODES, BACKLOG, HERE, LATENCY_JOBS, N, REPS, ROOT } from './config.js';
import { redis } from './harness.js';
import { parseInfo } from './redis.js';

function gitCommit(): string {
  try {
    const sha = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim();
    const dirty = execSync('git status --porcelain -- src machines', { cwd: ROOT }).toString().trim()
      ? ' (src/ or machines/ modified)'
      : '';
    return sha + dirty;
  } catch {
    return 'unknown';
  }
}

/** The installed version of a package: the bench's own package first, then Machinist's. */
function pkgVersion(name: string): string {
  const at = [
    join(HERE, 'node_modules', name, 'package.json'),
    join(ROOT, 'node_modules', name, 'package.json'),
  ];
  try {
    return (
      JSON.parse(readFileSync(at.find((p) => existsSync(p)) ?? at[1]!, 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '?';
  }
}

export async function machine(): Promise<string[]> {
  const server = parseInfo(await redis.ctl.info('server'));
  return [
    `- CPU: ${cpus()[0]?.model ?? '?'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM; load average at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
    `- Node ${process.version}; Redis ${server.redis_version ?? '?'} (a private redis-server per persistence mode: ${AOF_MODES.map((x) => AOF_LABEL[x]).join('; then ')})`,
    `- bullmq ${pkgVersion('bullmq')}, xstate ${pkgVersion('xstate')}, ioredis ${pkgVersion('ioredis')}`,
    `- git commit ${gitCommit()}; Machinist ${process.env.BENCH_SOURCE === 'src' ? 'from src/ through tsx (BENCH_SOURCE=src)' : 'from its compiled dist/ (bench/fromDist.mjs), as users run it'}`,
    `- ${N.toLocaleString('en-US')} jobs per workload, ${REPS} repetitions (Machinist and BullMQ alternating, order swapped every repetition), backlog ${BACKLOG.toLocaleString('en-US')}, ${LATENCY_JOBS} latency samples per repetition`,
  ];
}
