// `machinist/testing`: what users' own tests need to run their jobs without Redis.
export { createTestHarness } from './createTestHarness.js';
export type { TestHarness, TestHarnessOptions } from './createTestHarness.js';
export { TestClock } from './TestClock.js';
export { MemoryStore } from '../store/memory/MemoryStore.js';
export type { MemoryStoreOptions } from '../store/memory/MemoryStore.js';
