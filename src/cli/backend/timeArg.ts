// A time given on the command line: ms since epoch (all digits) or an ISO 8601 text, as the
// schedule calls take it (backfill's from and to, a schedule's start and end).

export function timeArg(text: string): number | string {
  return /^\d+$/.test(text) ? Number(text) : text;
}
