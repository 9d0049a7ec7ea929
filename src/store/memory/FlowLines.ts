// THE FLOW GATE's lines on MemoryStore (as lua/include/lcFlow.lua and lcGate.lua, which hold
// the invariants): how a job enters `queued` (EVERY JOB ENTERS `queued` HERE, the round robin's
// heads), how a key's or a machine gate's line goes back into `queued`, and the freeing of the
// slots a running job held. Separate from MemoryLifecycle.ts, which decides the moves and calls
// these as a move's side effects (freeSlot and freeGate from its `leave`, only); the claim
// (claimJobs.ts), a change of the limits (flowOps.ts) and the key and machine throttles
// (keyGate.ts, machineRate.ts) call the others too.

import { BAND } from '../storeConstants.js';
import type { QueueState } from './QueueState.js';

export class FlowLines {
  constructor(
    /** The lifecycle's host: an idle supervisor of the queue is woken when the operation ends. */
    private readonly host: { wake(q: QueueState): void },
  ) {}

  /**
   * Job `id` of key `key` stopped running: its slot frees (HERE ONLY, as lcFreeSlot in
   * lua/include/lcFlow.lua), and the first job waiting for one goes back in line at its place.
   */
  freeSlot(q: QueueState, id: string, key: string): void {
    // A job that held no slot (no perKey: none are kept) frees nothing.
    if (!q.flow.holders.get(key)?.delete(id)) return;
    const head = q.flow.waiting.get(key)?.popMin();
    if (head) {
      this.enterQueued(q, head.member, head.score, key);
      this.host.wake(q);
    }
    q.flow.tidy(key);
  }

  /**
   * EVERY JOB ENTERS `queued` HERE (lcEnterQueued in lua/include/lcFlow.lua, which holds the
   * invariants), at `score`; `key` its concurrency key. THE RULE: on a roundRobin queue, a keyed
   * job whose key already has its heads in `queued` goes to the key's line instead (at `score`)
   * and enters when a head leaves (headLeft). A job already in `queued` only changes place.
   */
  enterQueued(q: QueueState, id: string, score: number, key: string | undefined): void {
    const flow = q.flow;
    if (key !== undefined && flow.roundRobin && !q.index.queued.delete(id)) {
      flow.waiting.get(key)?.delete(id);
      const n = flow.rrq.get(key) ?? 0;
      if (n >= flow.heads) {
        flow.waitingOf(key).add(id, score);
        return;
      }
      flow.rrq.set(key, n + 1);
    }
    q.index.queued.add(id, score);
  }

  /**
   * A head of key `key` left `queued` (a roundRobin queue): its count goes down, and with
   * `promote` the key's next job enters at the BACK of its priority band, so keys alternate
   * (false: the head itself was set aside in the key's line; what frees the line releases it).
   */
  headLeft(q: QueueState, key: string, promote: boolean): void {
    const flow = q.flow;
    const n = (flow.rrq.get(key) ?? 0) - 1;
    if (n > 0) flow.rrq.set(key, n);
    else flow.rrq.delete(key);
    if (!promote) return;
    const head = flow.waiting.get(key)?.popMin();
    if (!head) return;
    const band = q.jobs.get(head.member)?.band ?? 2;
    this.enterQueued(q, head.member, band * BAND + ++q.seq, key);
    flow.tidy(key);
    this.host.wake(q);
  }

  /**
   * A head whose record vanished left `queued` (lcHeadsAfresh in lua/include/lcFlow.lua): its key
   * is not known, and a count too high STRANDS THE KEY'S LINE, so the counts start afresh and
   * every key's line puts its heads in (a count too low only lets a key have more heads a while).
   */
  headsAfresh(q: QueueState): void {
    q.flow.rrq.clear();
    for (const key of [...q.flow.waiting.keys()]) this.releaseLine(q, key);
  }

  /**
   * Key `key`'s line back into `queued` at its places (a resume, a change of the limits): all of
   * it, or on a roundRobin queue as many as the key may have heads (the rest follow as they leave).
   */
  releaseLine(q: QueueState, key: string): void {
    const flow = q.flow;
    const line = flow.waiting.get(key);
    if (!line) return;
    if (flow.roundRobin) {
      for (let room = flow.heads - (flow.rrq.get(key) ?? 0); room > 0; room--) {
        const head = line.popMin();
        if (!head) break;
        this.enterQueued(q, head.member, head.score, key);
      }
    } else {
      for (const [id, score] of line.entries()) q.index.queued.add(id, score);
      line.clear();
    }
    flow.tidy(key);
  }

  /**
   * Running job `id` stops: the machine gate slot it holds frees (HERE ONLY, as lcFreeGate in
   * lua/include/lcGate.lua), and the head of that gate's line goes back in line.
   */
  freeGate(q: QueueState, id: string): void {
    for (const [gate, holders] of q.flow.gateHolders) {
      if (!holders.delete(id)) continue;
      const line = q.flow.gateLines.get(gate);
      const head = line?.popMin();
      if (head) {
        this.enterQueued(q, head.member, head.score, q.jobs.get(head.member)?.concurrencyKey);
        this.host.wake(q);
      }
      if (line?.size === 0) q.flow.gateLines.delete(gate);
      if (holders.size === 0) q.flow.gateHolders.delete(gate);
      return;
    }
  }
}
