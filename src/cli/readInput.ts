// JSON given to enqueue or send: inline, `@path` (a file), or `-` (stdin). A large input (tens
// of MB) cannot be a command-line argument (the OS caps argv), so it comes from a file or a pipe.

import { readFile } from 'node:fs/promises';
import { CliError, EXIT } from './CliError.js';

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new CliError("'-' reads JSON from stdin, but stdin is a terminal", EXIT.usage);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The text an argument stands for. */
export async function inputText(arg: string): Promise<{ text: string; from: string }> {
  if (arg === '-') return { text: await readStdin(), from: 'stdin' };
  if (arg.startsWith('@')) {
    const path = arg.slice(1);
    try {
      return { text: await readFile(path, 'utf8'), from: path };
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new CliError(`cannot read ${path}: ${e.code ?? e.message}`, EXIT.usage);
    }
  }
  return { text: arg, from: '' };
}

/** The JSON an argument holds (`what` names it in the error: 'input', 'event'). */
export async function readJson(arg: string | undefined, what: string): Promise<unknown> {
  if (arg === undefined) return undefined;
  const { text, from } = await inputText(arg);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError(
      `${what}${from ? ` from ${from}` : ''} is not valid JSON: ${(err as Error).message}`,
      EXIT.usage,
    );
  }
}
