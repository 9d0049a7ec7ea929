// One store conformance suite for every backend: the Store interface case by case
// (storeCases.ts), then a real Supervisor and Client on top (runtimeCases.ts). A backend's test
// file calls describeStore with its factory; what a backend cannot do is skipped, saying why.

import { describe } from 'node:test';
import type { StoreFactory } from './storeFactory.js';
import { storeCases } from './storeCases.js';
import { runtimeCases } from './runtimeCases.js';
import { childCases } from './childCases.js';
import { retentionCases } from './retentionCases.js';
import { retryCases } from './retryCases.js';
import { lifecycleViewCases } from './lifecycleViewCases.js';

export function describeStore(factory: StoreFactory): void {
  describe(`${factory.name}: the Store interface`, () => storeCases(factory));
  describe(`${factory.name}: fan-out and retention`, () => childCases(factory));
  describe(`${factory.name}: retention of failed records`, () => retentionCases(factory));
  describe(`${factory.name}: under a Supervisor and a Client`, () => runtimeCases(factory));
  describe(`${factory.name}: attempts that end in error, retry-later or stall`, () => retryCases(factory));
  describe(`${factory.name}: the lifecycle a record shows is its status`, () => lifecycleViewCases(factory));
}
