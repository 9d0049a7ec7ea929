// The value codec's cost on the checkpoint path (src/store/valueCodec.ts): encodeValue against
// the JSON.stringify it replaced, for persisted snapshots of the shape a pipeline writes at every
// checkpoint. Plain snapshots pay one walk more (classify) and no superjson; only a snapshot that
// holds a Date (say) pays superjson. Run: npx tsx bench/codec.ts
import { cpus } from 'node:os';
import { decodeValue, encodeValue } from '../src/store/valueCodec.js';

const item = (i: number) => ({ id: `item-${i}`, qty: i, price: i * 1.5, tags: ['a', 'b'], ok: i % 2 === 0 });
const snapshot = (items: number, extra: Record<string, unknown> = {}) => ({
  status: 'active',
  value: 'charging',
  historyValue: {},
  context: {
    orderId: 'ord_123',
    customer: { name: 'Ana', email: 'ana@example.com' },
    items: Array.from({ length: items }, (_, i) => item(i)),
    total: 42.5,
    ...extra,
  },
  children: {
    charge: {
      snapshot: { status: 'active', input: { orderId: 'ord_123', amount: 42.5 } },
      src: 'charge',
      syncSnapshot: false,
    },
  },
});

/** The fastest of several rounds: on a shared host the minimum is the figure least bent by load. */
function time(label: string, fn: () => unknown): void {
  for (let i = 0; i < 20_000; i++) fn(); // warm up
  let best = Infinity;
  for (let round = 0; round < 9; round++) {
    const n = 30_000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / n);
  }
  console.log(`${label.padEnd(58)} ${(best / 1000).toFixed(2)} us`);
}

console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu?'} x${cpus().length}`);
for (const items of [3, 30]) {
  const s = snapshot(items);
  time(`JSON.stringify, plain snapshot, ${items} items`, () => JSON.stringify(s));
  time(`encodeValue, plain snapshot, ${items} items`, () => encodeValue(s, 'snapshot', ''));
}
const dated = snapshot(3, { startedAt: new Date(0), seen: new Set(['a']) });
time('encodeValue, snapshot with a Date and a Set, 3 items', () => encodeValue(dated, 'snapshot', ''));
const text = encodeValue(dated, 'snapshot', '');
time('decodeValue, snapshot with a Date and a Set, 3 items', () => decodeValue(text));
const plainText = JSON.stringify(snapshot(3));
time('JSON.parse, plain snapshot, 3 items', () => JSON.parse(plainText));
time('decodeValue, plain snapshot, 3 items', () => decodeValue(plainText));
