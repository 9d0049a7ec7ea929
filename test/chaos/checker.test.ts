// The chaos checker's count of completed checkpoints re-run (chaos/checker.ts), on oracle lines
// made by hand: a step that starts after a checkpoint past it is counted, and its note names who
// ran it, who wrote the checkpoint and the faults about then (a CI miss keeps only that note). A
// step's start is when its run found its lease sure (SURE LEASE): a process frozen between that
// and its effect logs the effect late, and that is the freeze's duplicate, not a re-run.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check } from '../../chaos/checker.js';
import type { OracleLine } from '../../chaos/oracle.js';

const line = (text: string): OracleLine => {
  const f = text.split(' ');
  return { kind: f[0]!, f: f.slice(1) };
};

function run(effectAt: number, checkedAt: number | '-' = '-') {
  const lines = [
    'Q J1 flow - 1000',
    'K J1 w1:1 101 1001',
    'E J1 a w1:1 101 1002',
    'FAULT sigstop 101 1100 4100',
    'K J1 w2:1 102 2200',
    'E J1 a w2:1 102 2201',
    'P J1 w2:1 102 "pause" 2400 2399',
    `E J1 a w1:1 101 ${effectAt} ${checkedAt}`,
  ].map(line);
  return check(lines, {
    records: new Map([['J1', { status: 'done', output: { go: null } } as never]]),
    logs: new Map(),
    children: new Map(),
  });
}

test('a step started after a checkpoint past it is counted, its note naming both runs and the fault', () => {
  const f = run(4101);
  assert.equal(f.reRunCheckpoint, 1);
  const note = f.examples.reRunCheckpoint?.[0] ?? '';
  assert.match(note, /J1 step a ran at 4101, its lease found sure at \? \(pid 101, token w1:1\)/);
  assert.match(note, /sent at 2399, answered at 2400 \(pid 102, token w2:1\)/);
  assert.match(note, /sigstop pid 101 1100\.\.4100/);
});

test('a step started before the checkpoint was written is no re-run', () => {
  assert.equal(run(2300).reRunCheckpoint, 0);
});

test('a step whose lease check passed after the checkpoint is counted, whenever its effect came', () => {
  assert.equal(run(4101, 4100).reRunCheckpoint, 1);
});

test('a step whose lease check passed before the freeze, its effect logged at the wake, is no re-run', () => {
  assert.equal(run(4101, 1099).reRunCheckpoint, 0);
});
