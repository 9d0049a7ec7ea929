// THE GATE (src/supervisor/WakeGate.ts): held runs' due timers go on at once while the pump's
// writes unanswered are under the limit and none waits; else they wait in line, FIFO, and go on
// as answers make room, no more at a time than the room left (LIVENESS: never left waiting).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WakeGate } from '../../src/supervisor/WakeGate.js';

const turn = () => new Promise((r) => setImmediate(r));

/** A gate of limit 4 over a backlog the test sets, and the wakes that went on, in order. */
function world() {
  const s = { backlog: 0, woke: [] as number[] };
  const gate = new WakeGate(() => s.backlog, 4);
  /** A wake that queues one write as it goes on (as a done does, one microtask later). */
  const wake = (n: number) => ({
    wakeNow: () => {
      s.woke.push(n);
      queueMicrotask(() => s.backlog++);
    },
  });
  return { s, gate, wake };
}

test('a wake goes on at once while the backlog is under the limit and none waits', () => {
  const { s, gate, wake } = world();
  s.backlog = 3;
  assert.equal(gate.pass(wake(1)), true);
  s.backlog = 4;
  assert.equal(gate.pass(wake(2)), false, 'at the limit: it waits');
  s.backlog = 0;
  assert.equal(gate.pass(wake(3)), false, 'one waits already: behind it, FIFO');
  assert.equal(gate.waiting, 2);
});

test('wakes in line go on in order, no more at a time than the room, as answers come', async () => {
  const { s, gate, wake } = world();
  s.backlog = 4;
  for (let i = 1; i <= 10; i++) assert.equal(gate.pass(wake(i)), false);
  await turn();
  assert.deepEqual(s.woke, [], 'nothing answered: all wait');
  s.backlog = 1; // three answered
  gate.answered();
  await turn();
  assert.deepEqual(s.woke, [1, 2, 3], 'the room left: 3');
  assert.equal(s.backlog, 4, 'each queued its write');
  await turn();
  assert.deepEqual(s.woke, [1, 2, 3], 'at the limit again: the rest wait');
  s.backlog = 0;
  gate.answered();
  await turn();
  await turn();
  assert.deepEqual(s.woke, [1, 2, 3, 4, 5, 6, 7]);
  s.backlog = 2;
  gate.answered();
  for (let i = 0; i < 3; i++) await turn();
  assert.deepEqual(s.woke, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  s.backlog = 0;
  gate.answered();
  for (let i = 0; i < 3; i++) await turn();
  assert.deepEqual(s.woke, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(gate.waiting, 0);
  assert.equal(gate.pass(wake(11)), true, 'the line empty and room: at once again');
});

test('LIVENESS: wakes that queue nothing (their runs ended) leave the rest to go on, unasked', async () => {
  const { s, gate } = world();
  s.backlog = 4;
  const quiet = (n: number) => ({ wakeNow: () => void s.woke.push(n) });
  for (let i = 1; i <= 9; i++) gate.pass(quiet(i));
  s.backlog = 0;
  gate.answered(); // one answer, then no more writes at all
  for (let i = 0; i < 5; i++) await turn();
  assert.deepEqual(s.woke, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
});
