// The limits a job's input must keep, checked by the Client when it enqueues and by the worker
// when it claims (a record a foreign producer wrote straight into Redis passed no client):
// what one refuses, the other refuses too, so no job a client could enqueue is set aside.

/** Default largest input, serialized (UTF-8 bytes): Client and Supervisor `maxPayloadBytes`. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

/**
 * Deepest nesting of arrays and objects. JSON.parse takes any depth, but JSON.stringify (which
 * every checkpoint and output goes through) overflows the stack a few thousand levels down: a
 * value nested past this could be read once and never stored again.
 */
export const MAX_INPUT_DEPTH = 1000;

/** UTF-8 bytes of `text`; counted only when it could be over `max` (a UTF-16 unit is <= 3 bytes). */
export function jsonBytesOver(text: string, max: number): number | null {
  if (text.length * 3 <= max) return null;
  const bytes = Buffer.byteLength(text);
  return bytes > max ? bytes : null;
}

/** Whether JSON text nests arrays and objects deeper than `max` (brackets in strings do not count). */
export function jsonNestsDeeper(text: string, max = MAX_INPUT_DEPTH): boolean {
  // Each level takes two characters: shorter text cannot be that deep (most inputs stop here).
  if (text.length <= 2 * max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}
