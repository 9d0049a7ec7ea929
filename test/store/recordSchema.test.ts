// The job record's schema (src/store/recordSchema.ts) is the whole truth about the job hash: every
// field a Lua script writes is listed, with the files that write it, and every field the
// decoders read is listed.

import { readFileSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { F, JOB_HASH, isJobField } from '../../src/store/recordSchema.js';
import { JOB_FIELDS } from '../../src/store/decodeJob.js';
import { jobFieldsWritten, type WrittenField } from '../support/luaJobFields.js';

const LUA = new URL('../../src/store/redis/lua/', import.meta.url);

function allWrites(): WrittenField[] {
  const files = [
    ...readdirSync(LUA).filter((f) => f.endsWith('.lua')),
    ...readdirSync(new URL('include/', LUA)).map((f) => `include/${f}`),
  ];
  return files.flatMap((f) =>
    jobFieldsWritten(readFileSync(new URL(f, LUA), 'utf8'), f.replace(/^include\//, '')),
  );
}

const family = (field: string): string => (/^l\d+$/.test(field) ? 'l<n>' : field);

describe('the job record schema', () => {
  it('every job-hash field a Lua script writes (HSET/HSETNX/HMSET) is in the schema', () => {
    const unknown = allWrites().filter((w) => !isJobField(w.field));
    assert.deepEqual(
      unknown.map((w) => `${w.file}:${w.line} writes '${w.field}'`),
      [],
      'add the field to src/store/recordSchema.ts (and docs/data-format.md): it changes the data format',
    );
  });

  it("each field's writers in the schema are exactly the Lua files that write it", () => {
    const writers = new Map<string, Set<string>>();
    for (const w of allWrites()) {
      const name = family(w.field);
      if (!writers.has(name)) writers.set(name, new Set());
      writers.get(name)!.add(w.file.replace(/\.lua$/, ''));
    }
    for (const spec of JOB_HASH)
      assert.deepEqual(
        [...(writers.get(spec.name) ?? [])].sort(),
        [...spec.writtenBy].sort(),
        `field '${spec.name}'`,
      );
  });

  it("docs/data-format.md lists exactly the schema's fields, in its order", () => {
    const doc = readFileSync(new URL('../../docs/data-format.md', import.meta.url), 'utf8');
    const from = doc.indexOf('## The job hash');
    // Up to the next section (the schedules' keys have a table of their own).
    const next = doc.indexOf('\n## ', from + 1);
    const table = doc.slice(from, next < 0 ? undefined : next);
    const names = [...table.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]);
    assert.deepEqual(
      names,
      JOB_HASH.map((s) => s.name),
    );
  });

  it('every field the decoders read is in the schema', () => {
    for (const name of [...JOB_FIELDS, ...Object.values(F)])
      assert.ok(isJobField(name), `'${name}' is not in the schema`);
  });

  it('the check sees a write of an unlisted field, in a call, a list constructor or a push', () => {
    const lua = [
      "redis.call('HSET', jk, 'st', 'done', 'zz1', 1)",
      "local args = { 'ua', now, 'zz2', 1 }",
      "args[#args + 1] = 'zz3'; args[#args + 1] = 'st'",
      "put(set, 'zz4', f1)",
      "redis.call('HSETNX', KEYS[2], 'zz5', 1)",
      "redis.call('HSET', fk, 'x', '1') -- a fan-out hash, not a job's",
      "redisCall('HSET', jk, 'o', output, 'zz6', 1) -- include/redisCall.lua's",
    ].join('\n');
    const unknown = jobFieldsWritten(lua, 'probe-1.lua').filter((w) => !isJobField(w.field));
    assert.deepEqual(unknown.map((w) => w.field).sort(), ['zz1', 'zz2', 'zz3', 'zz4', 'zz5', 'zz6']);
  });

  it('a write the check cannot read is an error, not a skipped field', () => {
    assert.throws(
      () => jobFieldsWritten("redis.call('HSET', jk, name, 1)", 'probe-1.lua'),
      /cannot read the field/,
    );
    assert.throws(
      () => jobFieldsWritten("redis.call('HSET', jk, unpack(other))", 'probe-1.lua'),
      /unknown list/,
    );
  });
});
