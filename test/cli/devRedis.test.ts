// `machinist dev --redis <url>` uses that Redis whatever the URL, even the default one
// (redis://127.0.0.1:6379) given explicitly: an option the user typed is never taken for
// commander's default. To give exactly that URL without touching the Redis that may already
// listen on 6379 here, the child runs in network and PID namespaces of its own (unshare), with a
// private redis-server on 6379 inside them; killing the namespace's first process ends both.
// Skipped where unprivileged namespaces or redis-server are unavailable.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ROOT, MAIN } from '../support/cli.js';
import { eventually } from '../support/redis.js';
import { TSX } from '../support/tsx.js';

const DEFAULT_URL = 'redis://127.0.0.1:6379';
const canIsolate =
  spawnSync('unshare', ['-rn', '--pid', '--fork', 'sh', '-c', 'ip link set lo up && command -v redis-server'])
    .status === 0;

describe(
  'machinist dev --redis',
  { skip: canIsolate ? false : 'needs unshare -rn, ip and redis-server' },
  () => {
    let child: ChildProcess | undefined;
    afterEach(() => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });

    it('uses Redis when --redis gives the default URL explicitly, not the in-memory store', async () => {
      // Inside the namespaces: loopback up, a private redis-server on 6379, then the CLI.
      const script = [
        'ip link set lo up',
        "redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no >/dev/null &",
        'until redis-cli -p 6379 ping >/dev/null 2>&1; do sleep 0.05; done',
        `exec "${process.execPath}" ${TSX.join(' ')} ${MAIN} --redis ${DEFAULT_URL} dev --port 0 --no-seed`,
      ].join('\n');
      child = spawn('unshare', ['-rn', '--pid', '--fork', '--kill-child', 'sh', '-c', script], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REDIS_URL: undefined, MACHINIST_TOKENS: undefined, MACHINIST_LOG: 'warn' },
      });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      await eventually(() => /dashboard at http/.test(out), 60_000, 50).catch(() => {
        throw new Error(`machinist dev did not start:\n${out}`);
      });
      assert.match(out, /machinist dev: Redis at redis:\/\/127\.0\.0\.1:6379, prefix 'machinist'/, out);
      assert.doesNotMatch(out, /in-memory store/, out);
    });
  },
);
