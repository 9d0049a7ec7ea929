// The HookStore suite on RedisStore's hook store, against a private redis-server.

import { after, before } from 'node:test';
import { RedisStore } from '../../src/store/redis/RedisStore.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';
import { describeHookStore } from './hookStore/hookStoreCases.js';

let redis: TestRedis;
before(async () => (redis = await startRedis()));
after(async () => redis.stop());

describeHookStore({
  name: 'RedisHookStore',
  make: async () => new RedisStore({ url: redis.url, prefix: uniquePrefix('hooks') }),
});
