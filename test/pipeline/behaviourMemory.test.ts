// The pipeline behaviour suite (behaviourSuite.ts) on MemoryStore: the same cases as on Redis
// (behaviour.test.ts), in one process with no server.

import { describe } from 'node:test';
import { MemoryHarness } from '../support/memoryHarness.js';
import { CASES_AT_ONCE, behaviourSuite } from './behaviourSuite.js';

describe('pipeline behaviour on MemoryStore, on both runtimes', { concurrency: CASES_AT_ONCE }, () => {
  behaviourSuite(() => new MemoryHarness());
});
