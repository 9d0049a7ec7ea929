// ROLE WebhookHost (optional): the webhook dispatcher's durable state, kept in the store
// (src/store/HookStore.ts). A Supervisor delivers no webhooks on a store without it.
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.

import type { HookStore } from '../HookStore.js';

export interface WebhookHost {
  /** The dispatcher's state for one queue (src/webhooks/WebhookDispatcher.ts); `close()` it when done. */
  webhookStore(queue: string): HookStore;
}

export function hasWebhooks<S extends object>(store: S): store is S & WebhookHost {
  return typeof (store as Partial<WebhookHost>).webhookStore === 'function';
}
