// The checker: holds what the oracle saw against what Redis holds at the end, and counts every
// breach of the delivery contract. Pure: it reads the oracle's lines and the final records and
// audit logs (read by Cluster.collect in cluster.ts), and returns figures and a few examples of
// each breach.
//
//   lost             an acknowledged enqueue whose record is gone
//   stuck            a job (or a fan-out child) not in a final status at the end
//   doubleComplete   a job with two acknowledged done writes, or two final entries in its log
//   duplicates       side effects beyond the first, per job and step (E lines)
//   unexplained      duplicates where neither run was touched by a fault: neither was on a
//                    faulted worker (or Redis) while the fault lasted
//   reRunCheckpoint  a step that started after a checkpoint past it had been written (started:
//                    when its run last found its lease sure, SURE LEASE; the effect's own time
//                    for a worker that does not say)
//   fannedTwice      a fan-out parent holding more children than it asked for
//   lostEvents       a GO acknowledged to a job that ended without it
//   cancelBroken     a job claimed again after its cancel was acknowledged, or not cancelled
//                    (unless the attempt that was running at the cancel finished it)
//   crashes          worker processes that died of an error they did not handle

import type { AuditEntry, JobRecord } from '../src/index.js';
import type { OracleLine } from './oracle.js';
import { FAN_CHILDREN, PIPELINE_PARTS } from './workload.js';

export interface Fault {
  name: string;
  /** The worker it hit; undefined: every worker (a Redis fault). */
  pid: number | undefined;
  from: number;
  to: number;
}

export interface Collected {
  records: Map<string, JobRecord | null>;
  /**
   * CHAOS_RECORD=minimal (mix.ts): the jobs that ended done in the queue over the test, from its
   * minute tallies (written atomically with each ending, a deleted minimal record included).
   */
  tallyDone?: number;
  logs: Map<string, AuditEntry[]>;
  /** Each fan-out parent's child ids. */
  children: Map<string, string[]>;
}

export interface Effect {
  id: string;
  part: string;
  token: string;
  pid: number;
  t: number;
  /** When its run last found its lease sure before it (the step's start: SURE LEASE), if said. */
  checked?: number;
}

export interface Figures {
  jobs: number;
  children: number;
  lost: number;
  stuck: number;
  doubleComplete: number;
  duplicates: number;
  unexplained: number;
  reRunCheckpoint: number;
  fannedTwice: number;
  lostEvents: number;
  cancelBroken: number;
  crashes: number;
  /** Acknowledged jobs that ended otherwise than their kind must (e.g. simple jobs failed). */
  wrongEnd: number;
  /** CHAOS_RECORD=minimal: simple jobs whose record was gone at the end (deleted at done, or lost). */
  minimalGone?: number;
  /** Writes refused because the lease was lost (R lines). */
  refused: number;
  examples: Record<string, string[]>;
}

/** How a job of each kind must end when no cancel was acknowledged for it. */
const EXPECTED_END: Record<string, string> = {
  simple: 'done',
  leaf: 'done',
  flow: 'done',
  fan: 'done',
  failing: 'failed',
  flaky: 'done',
  long: 'done',
  // blocker: how it ends is what T11 measures (and documents), not a target.
};
const FINAL = new Set(['done', 'failed', 'cancelled']);
const FINAL_ENTRIES = new Set(['done', 'failed', 'cancelled', 'broken']);
/** Lines of different processes are stamped a little apart (each when its write returned). */
const SLACK_MS = 100;

export function faultsOf(lines: OracleLine[]): Fault[] {
  return lines
    .filter((l) => l.kind === 'FAULT')
    .map((l) => ({
      name: l.f[0]!,
      pid: l.f[1] === '-' ? undefined : Number(l.f[1]),
      from: Number(l.f[2]),
      to: Number(l.f[3]),
    }));
}

/** The faults that overlap [from, to] (either order), give or take a second: a note's context. */
function faultsNear(faults: Fault[], a: number, b: number): string {
  const from = Math.min(a, b) - 1000;
  const to = Math.max(a, b) + 1000;
  const near = faults.filter((x) => x.from <= to && x.to >= from);
  return near.length === 0
    ? 'none'
    : near.map((x) => `${x.name} pid ${x.pid ?? '-'} ${x.from}..${x.to}`).join(', ');
}

export function effectsOf(lines: OracleLine[]): Effect[] {
  return lines
    .filter((l) => l.kind === 'E')
    .map((l) => {
      const e: Effect = {
        id: l.f[0]!,
        part: l.f[1]!,
        token: l.f[2]!,
        pid: Number(l.f[3]),
        t: Number(l.f[4]),
      };
      // '-' (never checked) or absent (an older worker's line) reads as NaN.
      const checked = Number(l.f[5]);
      if (Number.isFinite(checked)) e.checked = checked;
      return e;
    });
}

/** Every job id the checker must look at: acknowledged enqueues, and children seen at work. */
export function acknowledged(lines: OracleLine[]): Map<string, { kind: string; key: string }> {
  const out = new Map<string, { kind: string; key: string }>();
  for (const l of lines) if (l.kind === 'Q') out.set(l.f[0]!, { kind: l.f[1]!, key: l.f[2]! });
  return out;
}

export function check(lines: OracleLine[], got: Collected): Figures {
  const examples: Record<string, string[]> = {};
  const note = (what: string, text: string) => {
    const list = (examples[what] ??= []);
    if (list.length < 5) list.push(text);
  };
  const acked = acknowledged(lines);
  const faults = faultsOf(lines);
  const effects = effectsOf(lines);
  const sent = new Map<string, string>();
  const cancels = new Map<string, number>();
  /** Cancels sent, acknowledged or not: a resent cancel whose first reply was lost says false. */
  const cancelSent = new Set<string>();
  for (const l of lines) {
    if (l.kind === 'S') sent.set(l.f[0]!, l.f[1]!);
    if (l.kind === 'X' && l.f[1] === 'true') cancels.set(l.f[0]!, Number(l.f[2]));
    if (l.kind === 'X') cancelSent.add(l.f[0]!);
  }

  const f: Figures = {
    jobs: acked.size,
    children: 0,
    lost: 0,
    stuck: 0,
    doubleComplete: 0,
    duplicates: 0,
    unexplained: 0,
    reRunCheckpoint: 0,
    fannedTwice: 0,
    lostEvents: 0,
    cancelBroken: 0,
    crashes: lines.filter((l) => l.kind === 'CRASH').length,
    wrongEnd: 0,
    refused: lines.filter((l) => l.kind === 'R').length,
    examples,
  };
  for (const l of lines) if (l.kind === 'CRASH') note('crashes', `pid ${l.f[0]}: ${l.f[2]}`);

  // Lost, stuck and how each acknowledged job ended.
  const childIds = [...got.children.values()].flat();
  f.children = childIds.length;
  // MINIMAL: a simple job's minimal record is deleted as it ends done, so a missing one is done
  // or lost; the queue's tally of done jobs tells how many: its count beyond the done records
  // still there is the number of deleted ones (a job ends done once: THE FENCE), and any missing
  // record beyond that was lost.
  let gone = 0;
  for (const [id, { kind }] of acked) {
    const rec = got.records.get(id);
    if (!rec && got.tallyDone !== undefined && kind === 'simple') {
      gone++;
      continue;
    }
    if (!rec) {
      f.lost++;
      note('lost', `${kind} ${id}`);
      continue;
    }
    if (!FINAL.has(rec.status)) {
      f.stuck++;
      note('stuck', `${kind} ${id} ${rec.status} ${JSON.stringify(rec.state ?? null)}`);
      continue;
    }
    const want = cancels.has(id) ? 'cancelled' : EXPECTED_END[kind];
    // A cancel that came while the attempt ran may be overtaken by that attempt's own end; one
    // sent again after its reply was lost (T6) reports the job it cancelled as finished (false).
    const ok =
      rec.status === want ||
      (cancels.has(id) && rec.status === 'done') ||
      (cancelSent.has(id) && rec.status === 'cancelled');
    if (want && !ok) {
      f.wrongEnd++;
      note('wrongEnd', `${kind} ${id} ${rec.status} ${rec.error?.code ?? ''} ${rec.error?.message ?? ''}`);
    }
  }
  for (const id of childIds) {
    const rec = got.records.get(id);
    if (rec && !FINAL.has(rec.status)) {
      f.stuck++;
      note('stuck', `child ${id} ${rec.status}`);
    }
  }

  if (got.tallyDone !== undefined) {
    f.minimalGone = gone;
    let doneKept = 0;
    for (const rec of got.records.values()) if (rec?.status === 'done') doneKept++;
    const deleted = got.tallyDone - doneKept;
    if (gone > deleted) {
      f.lost += gone - deleted;
      note('lost', `${gone} minimal records missing, ${deleted} ended done by the queue's tally`);
    }
  }
  // Double completions: acknowledged done writes, and final entries in the audit log.
  const doneWrites = new Map<string, number>();
  for (const l of lines) if (l.kind === 'C') doneWrites.set(l.f[0]!, (doneWrites.get(l.f[0]!) ?? 0) + 1);
  const doubled = new Set<string>();
  for (const [id, n] of doneWrites) if (n > 1) doubled.add(id);
  for (const [id, log] of got.logs) {
    if (log.filter((e) => FINAL_ENTRIES.has(e.type)).length > 1) doubled.add(id);
  }
  f.doubleComplete = doubled.size;
  for (const id of doubled) note('doubleComplete', id);

  // Duplicated side effects, and whether a fault explains each.
  const byStep = new Map<string, Effect[]>();
  for (const e of effects) {
    const k = `${e.id} ${e.part}`;
    const list = byStep.get(k);
    if (list) list.push(e);
    else byStep.set(k, [e]);
  }
  // When each run (lease token) began: a run that was in flight during a fault may go on after
  // it ended, until a heartbeat or a refused write tells it that its lease is gone.
  const claimedAt = new Map<string, number>();
  for (const l of lines) if (l.kind === 'K') claimedAt.set(l.f[1]!, Number(l.f[3]));
  for (const [k, list] of byStep) {
    if (list.length < 2) continue;
    // Retries run a step again by design: one run per attempt is not a duplicate.
    if (k.endsWith(' run')) continue;
    list.sort((a, b) => a.t - b.t);
    for (let i = 1; i < list.length; i++) {
      f.duplicates++;
      const prev = list[i - 1]!;
      const cur = list[i]!;
      // Either run may be the faulted one: a killed worker's comes first, a frozen one's may
      // come after (its timers fire when it wakes, before it hears that its lease is gone).
      const touched = (a: Effect, b: Effect) => {
        const began = Math.min(a.t, claimedAt.get(a.token) ?? Infinity);
        return faults.some(
          (x) =>
            (x.pid === undefined || x.pid === a.pid) && began <= x.to + SLACK_MS && b.t >= x.from - SLACK_MS,
        );
      };
      const explained = touched(prev, cur) || touched(cur, prev);
      if (!explained) {
        f.unexplained++;
        note('unexplained', `${k}: pid ${prev.pid} at ${prev.t}, then pid ${cur.pid} at ${cur.t}`);
      }
    }
  }

  // A step that ran after a checkpoint past it was written.
  const checkpoints = new Map<
    string,
    { state: string; t: number; sent: number; token: string; pid: string }[]
  >();
  for (const l of lines) {
    if (l.kind !== 'P') continue;
    const list = checkpoints.get(l.f[0]!) ?? [];
    list.push({ state: l.f[3]!, t: Number(l.f[4]), sent: Number(l.f[5]), token: l.f[1]!, pid: l.f[2]! });
    checkpoints.set(l.f[0]!, list);
  }
  for (const e of effects) {
    const kind = acked.get(e.id)?.kind;
    const parts = kind ? PIPELINE_PARTS[kind] : undefined;
    const p = parts?.find((x) => x.part === e.part);
    if (!p) continue;
    // Its start: the lease check it passed. A process frozen between that check and the effect
    // (T3's SIGSTOP, which lands anywhere) logs the effect after another worker's takeover; that
    // duplicate is the fault's, the step having started while the lease was this run's.
    const started = e.checked ?? e.t;
    const past = (checkpoints.get(e.id) ?? []).find(
      (c) => c.t + SLACK_MS < started && p.doneAt.some((s) => c.state === JSON.stringify(s)),
    );
    if (past) {
      f.reRunCheckpoint++;
      note(
        'reRunCheckpoint',
        // Who ran it and who wrote the checkpoint, with what lease, and the faults about then:
        // what the diagnosis of a miss in CI needs when its oracle files are gone.
        `${e.id} step ${e.part} ran at ${e.t}, its lease found sure at ${e.checked ?? '?'} (pid ${e.pid}, token ${e.token}) after checkpoint ` +
          `${past.state} sent at ${past.sent}, answered at ${past.t} (pid ${past.pid}, token ${past.token}); ` +
          `faults: ${faultsNear(faults, e.t, past.sent)}`,
      );
    }
  }

  // Fan-outs: never more children than asked for.
  for (const [id, kids] of got.children) {
    if (kids.length > FAN_CHILDREN) {
      f.fannedTwice++;
      note('fannedTwice', `${id}: ${kids.length} children`);
    }
  }

  // Events: a job sent GO{n} ends done with go = n (or, cancelled, without it).
  for (const [id, n] of sent) {
    const rec = got.records.get(id);
    if (!rec || rec.status === 'cancelled') continue;
    const go = (rec.output as { go?: unknown } | null)?.go;
    if (rec.status !== 'done' || String(go) !== n) {
      f.lostEvents++;
      note('lostEvents', `${id} sent ${n}: ${rec.status} go=${String(go)}`);
    }
  }

  // Cancels are final: nothing claims the job after the cancel was acknowledged.
  for (const [id] of cancels) {
    const rec = got.records.get(id);
    const log = got.logs.get(id) ?? [];
    const at = log.findIndex((e) => e.type === 'cancel-requested' || e.type === 'cancelled');
    const claimedAfter = at >= 0 && log.slice(at + 1).some((e) => e.type === 'claimed');
    if (!rec || claimedAfter || !FINAL.has(rec.status)) {
      f.cancelBroken++;
      note(
        'cancelBroken',
        `${id}: ${rec?.status ?? 'gone'}${claimedAfter ? ', claimed after the cancel' : ''}`,
      );
    }
  }
  return f;
}
