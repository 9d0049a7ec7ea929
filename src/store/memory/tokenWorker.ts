// The worker holding a lease, read from its token (as lua/include/tokenWorker.lua): apart, since
// the lifecycle, the fan-in and the operations that tell a worker on its control channel all ask.

/** The worker holding a lease: a token is "<workerId>:<n>". */
export function tokenWorker(token: string | undefined): string | undefined {
  return token ? /^(.*):\d+$/.exec(token)?.[1] : undefined;
}
