// The job the HTTP bench submits: does nothing, so the figures are the API's and the store's.
import { defineJob } from '../src/index.js';

export const noop = defineJob({ name: 'noop', work: () => null });
