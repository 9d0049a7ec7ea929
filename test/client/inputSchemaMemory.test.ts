import { afterEach, describe, it } from 'node:test';
import { MemoryHarness } from '../support/memoryHarness.js';
import {
  awaitsAnAsyncSchema,
  checksFanOutChildren,
  refusesBadInputAtEnqueue,
  storesTheParsedValue,
  withoutASchemaNothingChanges,
} from './inputSchemaCases.js';

describe('input schemas at enqueue (MemoryStore)', () => {
  let h: MemoryHarness;
  afterEach(async () => h.close());

  it('refuses an input its schema does not take, naming the field, and writes nothing', async () => {
    h = new MemoryHarness();
    await refusesBadInputAtEnqueue(h);
  });
  it("stores the schema's output (defaults, transforms) as the input, and work gets it", async () => {
    h = new MemoryHarness();
    await storesTheParsedValue(h);
  });

  it('awaits an async schema, in enqueue and enqueueMany (a refused batch writes nothing)', async () => {
    h = new MemoryHarness();
    await awaitsAnAsyncSchema(h);
  });

  it('without a schema, any input is taken as before', async () => {
    h = new MemoryHarness();
    await withoutASchemaNothingChanges(h);
  });

  it("checks a fan-out's children against their schema before writing any", async () => {
    h = new MemoryHarness();
    await checksFanOutChildren(h);
  });
});
