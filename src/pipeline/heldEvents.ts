// Events sent with `until: 'accepted'` that no state has taken yet. Plain XState drops an event
// the current state does not take; such an event is instead held, offered again each time the
// machine settles (a new state, a child spawned), and dropped when it expires (`ttlMs`) or the
// job ends. The inbox position (`io`) moves past a held event like any other: it is kept in
// the job's snapshot (`sn.h`, stored with every checkpoint and park), so a parked job does not
// wake again and again for an event still waiting (the store wakes a job whose inbox holds more
// than `io` covers), and a crash or retry resumes with the held events of its last checkpoint.
// The runtime core (pipelineRun.ts) holds events through this class, whichever driver runs the
// machine.

import type { InboxEvent } from '../runtime/inboxEvent.js';
import { encodeInboxEvent, decodeInboxEvent } from '../runtime/inboxEvent.js';
import { toStoredJson } from '../runtime/storedJson.js';
import { reviveValue } from '../store/valueCodec.js';
import { matchesDescriptor, type IgnoredReason } from './whyIgnored.js';

/**
 * The answer of a runtime's `offer`: taken (then `send` delivers it: the caller logs the event
 * first, so the log reads event, then the state it led to), or why not.
 */
export type Offered =
  | { taken: true; send: () => void }
  | ({
      taken: false;
      /** No actor lives at the `to` path (yet): one may appear, so the event may be held. */
      missing: boolean;
      /** No state of the target machine has a transition for it: holding it would be futile. */
      never?: boolean;
    } & IgnoredReason);

export type Offer = (msg: InboxEvent) => Offered;

function where(msg: InboxEvent): { event: string; to?: string } {
  return msg.to === undefined ? { event: msg.event.type } : { event: msg.event.type, to: msg.to };
}

const markDirty = (run: { markDirty(): void }): void => run.markDirty();

export class HeldEvents {
  private held: InboxEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;

  /** `stored`: the `h` of the job's snapshot (envelopes as the inbox holds them). */
  constructor(storedH: unknown) {
    // Held events with a Date (say) are stored in the codec's envelope (valueCodec.ts).
    const stored = reviveValue(storedH);
    if (!Array.isArray(stored)) return;
    for (const entry of stored) {
      const msg = decodeInboxEvent(entry);
      if (msg) this.held.push(msg);
    }
  }

  get size(): number {
    return this.held.length;
  }

  /**
   * Offers an event read from the inbox; logs (into `log`) what became of it: taken, ignored
   * (plain XState semantics), held, or expired before it was read.
   */
  receive(msg: InboxEvent, offer: Offer, now: number, log: string[], state: unknown): void {
    if (msg.until === 'accepted' && msg.expiresAt !== undefined && now >= msg.expiresAt) {
      log.push(JSON.stringify({ type: 'event-expired', ...where(msg) }));
      return;
    }
    const offered = offer(msg);
    if (offered.taken) {
      log.push(JSON.stringify({ type: 'event', ...where(msg) }));
      offered.send();
      return;
    }
    const { taken: _t, missing: _m, never, ...why } = offered;
    if (msg.until === 'accepted' && !never) {
      this.held.push(msg);
      const expiresAt = msg.expiresAt === undefined ? {} : { expiresAt: msg.expiresAt };
      log.push(JSON.stringify({ type: 'event-held', ...where(msg), state, ...why, ...expiresAt }));
      return;
    }
    const reason =
      msg.until === 'accepted' ? { reason: `no state of the machine takes '${msg.event.type}'` } : why;
    log.push(JSON.stringify({ type: 'event-ignored', ...where(msg), state, ...reason }));
  }

  /** Offers each held event again, in the order sent; drops those taken or expired. */
  retry(offer: Offer, now: number, log: string[]): void {
    if (this.held.length === 0) return;
    const keep: InboxEvent[] = [];
    for (const msg of this.held) {
      if (msg.expiresAt !== undefined && now >= msg.expiresAt) {
        log.push(JSON.stringify({ type: 'event-expired', ...where(msg) }));
        continue;
      }
      const offered = offer(msg);
      if (offered.taken) {
        log.push(JSON.stringify({ type: 'event', ...where(msg) }));
        offered.send();
      } else keep.push(msg);
    }
    this.held = keep;
  }

  /** The job ended: nothing will take what is still held. */
  dropAll(log: string[]): void {
    for (const msg of this.held) {
      const reason = 'the job ended before a state took it';
      log.push(JSON.stringify({ type: 'event-ignored', ...where(msg), reason }));
    }
    this.held = [];
  }

  /** When the first held event expires (Redis ms), or null. */
  earliestExpiry(): number | null {
    let first: number | null = null;
    for (const msg of this.held)
      if (msg.expiresAt !== undefined && (first === null || msg.expiresAt < first)) first = msg.expiresAt;
    return first;
  }

  /**
   * Marks `run` dirty when the first held event expires (a running job logs it then, rather than
   * at its next state); one timer, moved when the first expiry changes. `now`: Redis ms (unused
   * when nothing is held).
   */
  wakeAtExpiry(now: number, run: { markDirty(): void }): void {
    const at = this.earliestExpiry();
    if (at === this.timerAt && this.timer) return;
    this.stop();
    if (at === null) return;
    this.timerAt = at;
    this.timer = setTimeout(markDirty, Math.max(0, at - now) + 1, run);
    this.timer.unref();
  }

  /** Clears the expiry timer (the run ended). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = 0;
  }

  /** The `h` to store (JSON), or '' when nothing is held. */
  text(): string {
    if (this.held.length === 0) return '';
    // Every held event was stored once already (in the inbox): the codec cannot refuse it.
    return toStoredJson(
      this.held.map((m) => encodeInboxEvent(m.event, m)),
      'snapshot',
      'h',
    );
  }
}

const takes = new WeakMap<object, Map<string, boolean>>();

/** Whether any state of `machine` has a transition for `eventType` (wildcards included). */
export function machineTakes(machine: unknown, eventType: string): boolean {
  if (!machine || typeof machine !== 'object') return false;
  let known = takes.get(machine);
  if (!known) takes.set(machine, (known = new Map()));
  let answer = known.get(eventType);
  if (answer === undefined) known.set(eventType, (answer = searchMachine(machine, eventType)));
  return answer;
}

function searchMachine(machine: object, eventType: string): boolean {
  type Node = { transitions?: Map<string, unknown[]>; states?: Record<string, Node> };
  const visit = (node: Node | undefined): boolean => {
    if (!node) return false;
    for (const descriptor of node.transitions?.keys() ?? [])
      if (matchesDescriptor(eventType, descriptor)) return true;
    return Object.values(node.states ?? {}).some(visit);
  };
  return visit((machine as { root?: Node } | undefined)?.root);
}
