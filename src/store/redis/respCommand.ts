// A command as the bytes Redis reads (RESP: `*<count>`, then `$<bytes>` and the value per part,
// each line ended by CRLF), written into one Buffer: the same bytes ioredis's Command.toWritable
// makes, without its text. ioredis builds that text by concatenation, 4 strings a value (~500 B
// a resumed pipeline's done, in a commit of 50), and the socket then flattens and encodes it
// (issue 25: writeUtf8String was ~8% of a resume's worker CPU). Used for the store's FCALLs
// (fcallCommand.ts), whose values are all strings.

const CRLF = 0x0d0a;

/** The RESP bytes of command `name` with `args` (each as UTF-8). */
export function respCommand(name: string, args: readonly string[]): Buffer {
  // Each value's byte length, measured once: the frame's size first, then its `$<bytes>` line.
  const lengths = new Array<number>(args.length);
  let size = lineSize(args.length + 1) + valueSize(Buffer.byteLength(name));
  for (let i = 0; i < args.length; i++) size += valueSize((lengths[i] = Buffer.byteLength(args[i]!)));
  const out = Buffer.allocUnsafe(size);
  let at = writeLine(out, 0, 0x2a /* * */, args.length + 1);
  at = writeValue(out, at, name, Buffer.byteLength(name));
  for (let i = 0; i < args.length; i++) at = writeValue(out, at, args[i]!, lengths[i]!);
  return out;
}

/** Bytes of a `<type><n>\r\n` line. */
function lineSize(n: number): number {
  return 3 + digits(n);
}

/** Bytes of a bulk string of `bytes` bytes: its `$<bytes>` line, itself and its CRLF. */
function valueSize(bytes: number): number {
  return lineSize(bytes) + bytes + 2;
}

function digits(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

/** Writes `<type><n>\r\n` at `at`; returns where it ends. */
function writeLine(out: Buffer, at: number, type: number, n: number): number {
  out[at] = type;
  const end = at + 1 + digits(n);
  for (let p = end - 1; p > at; p--) {
    out[p] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  out.writeUInt16BE(CRLF, end);
  return end + 2;
}

/** Writes the bulk string `value` (`bytes` bytes as UTF-8) at `at`; returns where it ends. */
function writeValue(out: Buffer, at: number, value: string, bytes: number): number {
  at = writeLine(out, at, 0x24 /* $ */, bytes);
  if (bytes > 0) at += out.write(value, at, 'utf8');
  out.writeUInt16BE(CRLF, at);
  return at + 2;
}
