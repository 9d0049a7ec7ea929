// The shape of MemoryStore's data file (snapshotFile.ts), checked before anything is read from
// it: a file of valid JSON but the wrong shape (edited by hand, written by something else, cut
// short by a tool) is refused with BAD_DATA_FILE naming the field that is wrong, rather than
// failing later with a TypeError from deep inside the decoder, or loading half a store.

import { MachinistError } from '../../errors.js';
import { INDEX_NAMES } from './QueueState.js';
import { CODE } from '../../errorCodes.js';

type Check = (v: unknown, path: string) => void;

/** Throws BAD_DATA_FILE (`field` = the path of the first wrong value) unless `doc` has the shape. */
export function checkDataShape(doc: unknown, file: string): void {
  const fail = (path: string, want: string, got: unknown): never => {
    throw new MachinistError(
      CODE.BAD_DATA_FILE,
      `MemoryStore: ${file} is not a valid data file: ${path} should be ${want}, found ${kindOf(got)}`,
      { field: path },
    );
  };
  const str: Check = (v, p) => void (typeof v === 'string' || fail(p, 'a string', v));
  const num: Check = (v, p) => void (typeof v === 'number' || fail(p, 'a number', v));
  const any: Check = () => {};
  const obj =
    (fields: Record<string, Check> = {}, optional: readonly string[] = []): Check =>
    (v, p) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(p, 'an object', v);
      const o = v as Record<string, unknown>;
      for (const [k, check] of Object.entries(fields))
        if (!(optional.includes(k) && o[k] === undefined)) check(o[k], `${p ? `${p}.` : ''}${k}`);
    };
  const arr =
    (each: Check): Check =>
    (v, p) => {
      if (!Array.isArray(v)) fail(p, 'an array', v);
      (v as unknown[]).forEach((e, i) => each(e, `${p}[${i}]`));
    };
  const pair =
    (first: Check, second: Check): Check =>
    (v, p) => {
      if (!Array.isArray(v) || v.length !== 2) fail(p, 'a [key, value] pair', v);
      first((v as unknown[])[0], `${p}[0]`);
      second((v as unknown[])[1], `${p}[1]`);
    };
  const scores = arr(pair(str, num));
  const job = obj({ id: str, status: str, log: arr(any) });
  const hooks = obj({
    hooked: scores,
    due: scores,
    chains: arr(pair(str, arr(any))),
    meta: arr(pair(str, obj())),
    cursor: str,
  });
  const queue = obj(
    {
      name: str,
      seq: num,
      tok: num,
      eventSeq: num,
      events: arr(obj()),
      jobs: arr(job),
      index: obj(Object.fromEntries(INDEX_NAMES.map((n) => [n, scores])), INDEX_NAMES),
      brokenWhy: arr(pair(str, any)),
      fans: arr(pair(str, obj({ results: arr(pair(num, any)) }))),
      children: arr(pair(str, obj({ ids: scores }))),
      idempotency: arr(pair(str, any)),
      // Absent in files written before dedupe keys were kept.
      dedupe: arr(pair(str, any)),
      // Absent in files written before webhooks were kept (HookState.fromJSON).
      hooks,
      flow: obj({ limits: obj(), waiting: arr(pair(str, scores)) }),
    },
    ['hooks', 'dedupe', 'flow'],
  );
  // `partitions` is absent in files written before queues could be partitioned.
  obj(
    {
      queueSet: arr(str),
      machines: arr(obj({ name: str })),
      queues: arr(queue),
      partitions: arr(pair(str, num)),
      schedules: arr(pair(str, obj({ body: str, rev: num }))),
    },
    ['partitions', 'schedules'],
  )(doc, '');
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`.slice(0, 60);
}
