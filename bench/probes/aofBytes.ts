// Probe: what a no-op job writes to the AOF (appendonly yes, appendfsync everysec), per store of
// each source tree given: the bytes and the commands its enqueue and its processing (claim +
// plain done, batches of 100 as the bench's workers send them) propagate, read back from the AOF
// file and told apart by command and key kind (job hash, queued, active, done, events ...). With
// AOF on, Redis formats every write command a script runs (its effects, between MULTI and EXEC)
// into the AOF, so what a job costs there is its write commands, their arguments and bytes.
//
//   node --import tsx bench/probes/aofBytes.ts ROOT... [--jobs 2000] [--minimal]
//
// ROOT is a checkout of Machinist (its src/index.ts is imported), e.g. a `git worktree add` of an
// older commit; each root runs on a private redis-server of its own.

import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startRedis } from '../redis.js';
import type { RedisStore } from '../../src/index.js';
import type { NewJob } from '../../src/store/types.js';

const argv = process.argv.slice(2);
const flag = (name: string): boolean => {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) argv.splice(i, 1);
  return i >= 0;
};
const value = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(argv.splice(i, 2)[1]);
};
const JOBS = value('jobs', 2_000);
const MINIMAL = flag('minimal');
const roots = argv;
if (roots.length === 0) throw new Error('usage: aofBytes.ts ROOT... [--jobs N] [--minimal]');
const BATCH = 100;

type Store = Pick<RedisStore, 'enqueue' | 'commit' | 'close'>;
type StoreClass = new (o: { url: string; prefix: string }) => Store;

/** The commands of a slice of AOF text (RESP arrays), as argument lists. */
function commands(buf: Buffer): Buffer[][] {
  const out: Buffer[][] = [];
  let i = 0;
  const line = (): number => {
    const j = buf.indexOf('\r\n', i);
    const n = Number(buf.subarray(i + 1, j).toString());
    i = j + 2;
    return n;
  };
  while (i < buf.length) {
    const argc = line();
    const args: Buffer[] = [];
    for (let a = 0; a < argc; a++) {
      const len = line();
      args.push(buf.subarray(i, i + len));
      i += len + 2;
    }
    out.push(args);
  }
  return out;
}

/** A command's kind: its name and its key's last part, ids left out (`HSET job`, `ZADD queued`). */
function kind(args: Buffer[]): string {
  const name = args[0]!.toString().toUpperCase();
  const key = args[1]?.toString() ?? '';
  const tail = key.includes('}:') ? key.slice(key.indexOf('}:') + 2) : '';
  return `${name} ${tail.replace(/^(job|series):.*/, '$1')}`.trim();
}

function incrFile(dir: string): string {
  const aofDir = join(dir, 'appendonlydir');
  return join(
    aofDir,
    readdirSync(aofDir).find((f) => f.endsWith('.incr.aof'))!,
  );
}

type Tally = Map<string, { count: number; args: number; bytes: number }>;
function tally(slice: Buffer): Tally {
  const t: Tally = new Map();
  for (const args of commands(slice)) {
    const k = kind(args);
    const e = t.get(k) ?? { count: 0, args: 0, bytes: 0 };
    e.count++;
    e.args += args.length;
    e.bytes += args.reduce(
      (s, a) => s + a.length + String(a.length).length + 5,
      String(args.length).length + 3,
    );
    t.set(k, e);
  }
  return t;
}

function print(root: string, phase: string, t: Tally): void {
  const total = [...t.values()].reduce((s, e) => s + e.bytes, 0);
  const cmds = [...t.values()].reduce((s, e) => s + e.count, 0);
  const args = [...t.values()].reduce((s, e) => s + e.args, 0);
  console.log(
    `${root}\t${phase}\t${(total / JOBS).toFixed(1)} B/job\t${(cmds / JOBS).toFixed(2)} commands/job\t${(args / JOBS).toFixed(1)} args/job`,
  );
  for (const [k, e] of [...t.entries()].sort((a, b) => b[1].bytes - a[1].bytes))
    console.log(
      `\t\t${k}\t${(e.bytes / JOBS).toFixed(1)} B/job\t${(e.count / JOBS).toFixed(3)} /job\t${(e.args / JOBS).toFixed(1)} args/job`,
    );
}

for (const root of roots) {
  const { RedisStore: Store } = (await import(pathToFileURL(resolve(root, 'src/index.ts')).href)) as {
    RedisStore: StoreClass;
  };
  const dir = mkdtempSync(join(tmpdir(), 'aofbytes-'));
  const redis = await startRedis([
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--auto-aof-rewrite-percentage',
    '0',
    '--dir',
    dir,
  ]);
  try {
    const store = new Store({ url: redis.url, prefix: 'aof' });
    // The store's first call loads its scripts (FUNCTION LOAD) and its format mark: not counted.
    await store.commit('default', []);
    // With everysec, Redis may hold a write back while a background fsync runs (up to 2 s): the
    // file's size is read once its buffer is empty.
    const size = async (): Promise<number> => {
      while (!/aof_buffer_length:0\r/.test(await redis.ctl.info('persistence')))
        await new Promise((r) => setTimeout(r, 50));
      return readFileSync(incrFile(dir)).length;
    };
    const at0 = await size();
    for (let i = 0; i < JOBS; i += BATCH) {
      const jobs: NewJob[] = [];
      for (let k = i; k < Math.min(JOBS, i + BATCH); k++)
        jobs.push({
          id: `j${k}`,
          machine: 'm',
          version: 1,
          input: '{"n":1}',
          band: 2,
          delayMs: 0,
          maxAttempts: 3,
          ...(MINIMAL ? { minimal: true } : {}),
        });
      await store.enqueue('default', jobs);
    }
    const at1 = await size();
    const claim = { workerId: 'w', leaseMs: 60_000, max: BATCH, loadMachines: [] as string[] };
    let { claimed } = await store.commit('default', [], claim);
    while (claimed.length > 0)
      ({ claimed } = await store.commit(
        'default',
        claimed.map((c) => ({
          kind: 'done' as const,
          id: c.id,
          token: c.token,
          output: '{"ok":1}',
          snapshot: '',
          log: ['{"type":"done"}'],
        })),
        claim,
      ));
    const at2 = await size();
    const aof = readFileSync(incrFile(dir));
    print(root, 'enqueue', tally(aof.subarray(at0, at1)));
    print(root, 'claim + done', tally(aof.subarray(at1, at2)));
    await store.close();
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
