// What the route files share: the client every write goes through (so the API validates and
// writes exactly as the library does), the store for reads the client has no method for, the
// definitions the server was given, the live-event hub, and the limits.

import type { FastifyRequest } from 'fastify';
import type { Client } from '../client/Client.js';
import type { Registry } from '../runtime/registry.js';
import type { Store } from '../store/types.js';
import type { EventHub } from './EventHub.js';
import type { SseStream } from './SseStream.js';

export interface ApiContext {
  store: Store;
  client: Client<never>;
  /** The definitions given to createServer (`--jobs`), if any. */
  local: Registry | undefined;
  hub: EventHub;
  /** Open server-sent-event streams, ended before the server closes. */
  streams: Set<SseStream>;
  defaultQueue: string;
  maxWaitMs: number;
  heartbeatMs: number;
  /** Whether this caller is shown error stacks (errorStacks.ts). */
  showStacks: (request: FastifyRequest) => boolean;
}
