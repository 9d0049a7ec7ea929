import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'ioredis';
import { respCommand } from '../../../src/store/redis/respCommand.js';

/** What ioredis writes to the socket for `name` with `args`, as bytes. */
function ioredisBytes(name: string, args: string[]): Buffer {
  const w = new Command(name, args).toWritable({});
  return typeof w === 'string' ? Buffer.from(w, 'utf8') : w;
}

describe('a command as RESP bytes in one Buffer', () => {
  it("is the bytes ioredis's own command text is: empty, non-ASCII, long values and counts of 10 and more", () => {
    const cases: string[][] = [
      [],
      ['x'],
      ['', 'a', ''],
      ['héllo ✓', '日本語', '😀', 'lone \ud800 surrogate'],
      ['x'.repeat(9), 'y'.repeat(10), 'z'.repeat(99), 'w'.repeat(100), 'v'.repeat(70_000)],
      Array.from({ length: 123 }, (_, i) => `arg${i}`),
    ];
    for (const args of cases)
      assert.deepEqual(
        respCommand('fcall', args),
        ioredisBytes('fcall', args),
        JSON.stringify(args).slice(0, 80),
      );
  });
});
