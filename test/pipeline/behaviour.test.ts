// The pipeline behaviour suite (behaviourSuite.ts) on RedisStore, against a private
// redis-server.

import { after, before, describe } from 'node:test';
import { Harness } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { CASES_AT_ONCE, behaviourSuite } from './behaviourSuite.js';

describe('pipeline behaviour, on both runtimes', { concurrency: CASES_AT_ONCE }, () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  behaviourSuite(() => new Harness(redis));
});
