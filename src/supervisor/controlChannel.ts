// The control channel: messages other processes publish to this worker ('cancel <id>',
// 'event <id>', 'fanin <id>') reach the job's run here. A message for a job not running here
// is dropped.

import { hasControlChannel, type Store } from '../store/types.js';
import type { ActiveJob } from '../runtime/ActiveJob.js';

/**
 * Subscribes this worker to its queue's control messages, when the store has a channel.
 * Returns the unsubscribe, or undefined.
 */
export async function subscribeControl(
  store: Store,
  queue: string,
  workerId: string,
  running: ReadonlyMap<string, ActiveJob>,
): Promise<(() => Promise<void>) | undefined> {
  if (!hasControlChannel(store)) return undefined;
  return store.subscribeControl(queue, workerId, (m: string) => deliverControl(running, m));
}

/** Tells the running job what `message` asks: abort (cancel), or look at its inbox or fan-in. */
export function deliverControl(running: ReadonlyMap<string, ActiveJob>, message: string): void {
  const [cmd, id] = message.split(' ');
  if (!id) return;
  if (cmd === 'cancel') running.get(id)?.abort('cancel', 'job was cancelled');
  else if (cmd === 'event') {
    const job = running.get(id);
    if (job?.pipeline) job.pipeline.readInbox();
    else if (job) job.inboxSignal = true;
  } else if (cmd === 'fanin') {
    const job = running.get(id);
    if (job?.onFanIn) job.onFanIn();
    else if (job) job.fanInSignal = true;
  }
}
