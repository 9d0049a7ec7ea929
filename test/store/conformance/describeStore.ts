// The store conformance suites for every backend, by role (src/store/roles/): each file holds the
// cases of one role or concern, a function taking the backend's factory. Then a real Supervisor
// and Client on top (runtimeCases.ts, runtimeTreeCases.ts, retryCases.ts, stallCases.ts). A
// backend's test file calls describeStore with its factory; what a backend cannot do is skipped,
// saying why. The optional roles have suites of their own: WebhookHost in test/webhooks/hookStore/
// (describeHookStore), Ingress in test/ingress/ (RedisStore, the one backend that has it).

import { describe } from 'node:test';
import type { StoreFactory } from './storeFactory.js';
import { claimCases } from './claimCases.js';
import { fenceCases } from './fenceCases.js';
import { leaseCases } from './leaseCases.js';
import { parkCases } from './parkCases.js';
import { fanOutCases } from './fanOutCases.js';
import { childCases } from './childCases.js';
import { recordCases } from './recordCases.js';
import { deadLetterCases } from './deadLetterCases.js';
import { retentionCases } from './retentionCases.js';
import { resultWatchCases } from './resultWatchCases.js';
import { eventLogCases } from './eventLogCases.js';
import { runtimeCases } from './runtimeCases.js';
import { runtimeTreeCases } from './runtimeTreeCases.js';
import { retryCases } from './retryCases.js';
import { stallCases } from './stallCases.js';
import { lifecycleViewCases } from './lifecycleViewCases.js';

export function describeStore(factory: StoreFactory): void {
  const { name } = factory;
  describe(`${name}: WorkQueue, claims`, () => claimCases(factory));
  describe(`${name}: WorkQueue, THE FENCE and THE CANCEL GUARD`, () => fenceCases(factory));
  describe(`${name}: WorkQueue, leases`, () => leaseCases(factory));
  describe(`${name}: WorkQueue, retries, parks and inboxes`, () => parkCases(factory));
  describe(`${name}: FanOut`, () => fanOutCases(factory));
  describe(`${name}: FanOut, fan-out and retention`, () => childCases(factory));
  describe(`${name}: JobRecords`, () => recordCases(factory));
  describe(`${name}: DeadLetters`, () => deadLetterCases(factory));
  describe(`${name}: DeadLetters, retention of failed records`, () => retentionCases(factory));
  describe(`${name}: ResultWatch`, () => resultWatchCases(factory));
  describe(`${name}: EventLog`, () => eventLogCases(factory));
  describe(`${name}: under a Supervisor and a Client`, () => runtimeCases(factory));
  describe(`${name}: under a Supervisor and a Client, children and second lives`, () =>
    runtimeTreeCases(factory));
  describe(`${name}: attempts that end in error or retry-later`, () => retryCases(factory));
  describe(`${name}: attempts that stall`, () => stallCases(factory));
  describe(`${name}: the lifecycle a record shows is its status`, () => lifecycleViewCases(factory));
}
