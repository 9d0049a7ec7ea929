// The HookStore suite on MemoryStore's hook store (one process, no server).

import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { describeHookStore } from './hookStore/hookStoreCases.js';

describeHookStore({ name: 'MemoryHookStore', make: async () => new MemoryStore() });
