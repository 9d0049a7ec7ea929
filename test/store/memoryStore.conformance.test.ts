// The store conformance suite on MemoryStore (one process, no server).

import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { describeStore } from './conformance/describeStore.js';

describeStore({
  name: 'MemoryStore',
  make: async (options) => new MemoryStore(options),
});
