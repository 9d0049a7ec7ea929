// Fills a queue from a process of its own, then exits (workload 8). A 1,000,000-job enqueue
// leaves the enqueuing process with garbage that it would otherwise collect during the timed
// window, on the same two cores as the worker and Redis; a process that has exited collects
// nothing.
//
//   node --import tsx bench/fill.ts '{"system":"machinist","host":"127.0.0.1","port":6379,"queue":"bench","n":1000}'

import { openSide } from './sides.js';
import type { SystemName } from './common.js';

export interface FillConfig {
  system: SystemName;
  host: string;
  port: number;
  queue: string;
  n: number;
  batch: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as FillConfig;
const side = openSide(config.system, config, config.queue);
try {
  await side.enqueueBulk(config.n, config.batch);
} finally {
  await side.close();
}
