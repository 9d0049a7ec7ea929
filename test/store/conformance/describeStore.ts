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
import { scheduleCases } from './scheduleCases.js';
import { earlyLeaseCases } from './earlyLeaseCases.js';

/** Each suite by its title, in the order they run. */
export const STORE_SUITES = {
  'WorkQueue, claims': claimCases,
  'WorkQueue, THE FENCE and THE CANCEL GUARD': fenceCases,
  'WorkQueue, leases': leaseCases,
  'WorkQueue, retries, parks and inboxes': parkCases,
  FanOut: fanOutCases,
  'FanOut, fan-out and retention': childCases,
  JobRecords: recordCases,
  DeadLetters: deadLetterCases,
  'DeadLetters, retention of failed records': retentionCases,
  ResultWatch: resultWatchCases,
  EventLog: eventLogCases,
  'under a Supervisor and a Client': runtimeCases,
  'under a Supervisor and a Client, children and second lives': runtimeTreeCases,
  'attempts that end in error or retry-later': retryCases,
  'attempts that stall': stallCases,
  'the lifecycle a record shows is its status': lifecycleViewCases,
  Schedules: scheduleCases,
  'THE EARLY LEASE (parked timers claimed before due)': earlyLeaseCases,
} satisfies Record<string, (factory: StoreFactory) => void>;

export type StoreSuite = keyof typeof STORE_SUITES;

/** Every suite on `factory`'s backend, or only the ones named in `only` (a variant of a backend
 * run for what it changes: Redis Cluster runs the ones that route between queues). */
export function describeStore(factory: StoreFactory, only?: readonly StoreSuite[]): void {
  for (const [title, cases] of Object.entries(STORE_SUITES) as [StoreSuite, (f: StoreFactory) => void][])
    if (!only || only.includes(title)) describe(`${factory.name}: ${title}`, () => cases(factory));
}
