// The store conformance suite on RedisStore, against a private redis-server; the killed worker
// is a real child process (test/fixtures/claimAndHang.ts) killed with SIGKILL.

import { after, before } from 'node:test';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { RedisStore } from '../../src/store/redis/RedisStore.js';
import { describeStore } from './conformance/describeStore.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { TSX } from '../support/tsx.js';

let redis: TestRedis;
before(async () => (redis = await startRedis()));
after(async () => redis.stop());

const fixture = fileURLToPath(new URL('../fixtures/claimAndHang.ts', import.meta.url));

describeStore({
  name: 'RedisStore',
  make: async (options) => new RedisStore({ url: redis.url, prefix: uniquePrefix('conf'), ...options }),
  claimInKilledProcess: async (store, queue, leaseMs) => {
    const child = spawn(
      process.execPath,
      [...TSX, fixture, redis.url, store.prefix, queue, String(leaseMs)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    while (!out.includes('\n')) await once(child.stdout, 'data');
    child.kill('SIGKILL');
    await once(child, 'exit');
    return out.trim();
  },
});
