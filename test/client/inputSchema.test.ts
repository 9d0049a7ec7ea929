import { after, afterEach, before, describe, it } from 'node:test';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';
import {
  awaitsAnAsyncSchema,
  checksFanOutChildren,
  refusesBadInputAtEnqueue,
  storesTheParsedValue,
  withoutASchemaNothingChanges,
} from './inputSchemaCases.js';

describe('input schemas at enqueue (Redis)', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('refuses an input its schema does not take, naming the field, and writes nothing', async () => {
    h = new Harness(redis);
    await refusesBadInputAtEnqueue(h);
  });
  it("stores the schema's output (defaults, transforms) as the input, and work gets it", async () => {
    h = new Harness(redis);
    await storesTheParsedValue(h);
  });

  it('awaits an async schema, in enqueue and enqueueMany (a refused batch writes nothing)', async () => {
    h = new Harness(redis);
    await awaitsAnAsyncSchema(h);
  });

  it('without a schema, any input is taken as before', async () => {
    h = new Harness(redis);
    await withoutASchemaNothingChanges(h);
  });

  it("checks a fan-out's children against their schema before writing any", async () => {
    h = new Harness(redis);
    await checksFanOutChildren(h);
  });
});
