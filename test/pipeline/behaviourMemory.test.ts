// The pipeline behaviour suite (behaviourSuite.ts) on MemoryStore: the same cases as on Redis
// (behaviour.test.ts), in one process with no server.

import { describe } from 'node:test';
import { MemoryHarness } from '../support/memoryHarness.js';
import { behaviourSuite } from './behaviourSuite.js';

describe('pipeline behaviour on MemoryStore, on both runtimes', () => {
  behaviourSuite(() => new MemoryHarness());
});
