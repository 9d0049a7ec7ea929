// The enqueue of a fan-out group's children (Client.enqueueChildren, called by a pipeline's
// fan-out): the one place a job gets a parent.

import type { NewJob, Store } from '../store/types.js';
import { childId } from '../store/keys.js';
import { ValidationError } from '../errors.js';
import type { ChildJob } from '../runtime/AttemptHost.js';
import type { MachineFactsLookup } from './MachineFactsLookup.js';
import type { JobPreparer } from './JobPreparer.js';

/** Children written per chunk: one store call per queue each. */
const CHUNK = 1000;

/** The parent, its group, and the children to write; see Client.enqueueChildren. */
export interface ChildGroup {
  parentId: string;
  parentQueue: string;
  group: string;
  jobs: readonly ChildJob[];
  revive?: ReadonlySet<number>;
  parentToken?: string;
  trace?: unknown;
}

export async function enqueueChildren(
  store: Store,
  facts: MachineFactsLookup,
  preparer: JobPreparer,
  { parentId, parentQueue, group, jobs, revive, parentToken, trace }: ChildGroup,
  /** The stored queue of a child of `queue` with id `id` (its partition: Client.jobQueue). */
  route: (queue: string, id: string) => Promise<string | undefined> = (queue) => Promise.resolve(queue),
): Promise<void> {
  // Bounded by batch size, not by a promise pool (p-limit): each chunk is one store call per
  // queue, and chunks go one after the other so that a parent's children are written in index
  // order and a failed chunk leaves none after it written.
  for (let start = 0; start < jobs.length; start += CHUNK) {
    const byQueue = new Map<string, NewJob[]>();
    for (let index = start; index < Math.min(jobs.length, start + CHUNK); index++) {
      const spec = jobs[index]!;
      // Refused, never dropped: a deduplicated child would be another job, and the parent's
      // fan-in waits for this very child (its deterministic id).
      if ((spec as { dedupe?: unknown }).dedupe !== undefined)
        throw new ValidationError(
          `fan-out child ${index} (${spec.machine}) cannot set dedupe: its parent waits for that very child; dedupe inside the child's work, or enqueue it with client.enqueue`,
          { field: 'dedupe', machine: spec.machine },
        );
      const m = facts.machineInfo(spec.machine);
      const id = childId(parentId, group, index);
      // A child of a partitioned queue goes to the partition its id names (hashed: docs/partitions.md).
      const childQueue =
        spec.queue === undefined ? parentQueue : ((await route(spec.queue, id)) ?? spec.queue);
      const prepared = preparer.prepare(
        spec.machine,
        spec.input,
        { queue: childQueue, priority: spec.priority, concurrencyKey: spec.concurrencyKey },
        m instanceof Promise ? await m : m,
        // The child's id is fixed before its publish span starts: the span carries it.
        { id, trace },
      );
      const { queue, job, publish } = prepared instanceof Promise ? await prepared : prepared;
      // The one place a job gets a parent (public enqueue options refuse parentId).
      job.parentId = parentId;
      job.parentQueue = queue === parentQueue ? '' : parentQueue;
      job.group = group;
      job.index = index;
      if (parentToken) job.parentToken = parentToken;
      if (revive?.has(index)) job.revive = true;
      // A child's publish span covers building it; its write is the parent's batch below.
      publish?.end();
      const list = byQueue.get(queue) ?? [];
      list.push(job);
      byQueue.set(queue, list);
    }
    await Promise.all([...byQueue.entries()].map(([queue, list]) => store.enqueue(queue, list)));
  }
}
