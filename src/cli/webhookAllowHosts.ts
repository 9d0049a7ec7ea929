// --webhook-allow-hosts, shared by `worker`, `serve` and `dev`: the hosts webhooks may reach
// although the SSRF guard (src/webhooks/addressGuard.ts) refuses them as private, loopback or
// link-local addresses, e.g. a receiver inside the operator's own network.

import { InvalidArgumentError, Option } from 'commander';

/** `host`, `host:port`, an IPv4 address or a bracketed IPv6 one (`[fd00::7]:8443`), lower-cased. */
export function hostList(value: string): string[] {
  const hosts = value.split(',').map((h) => h.trim().toLowerCase());
  for (const host of hosts) {
    let ok = false;
    try {
      const u = new URL(`http://${host}/`);
      ok = host !== '' && u.host === host && u.pathname === '/' && !u.username && !u.password;
    } catch {
      // Not a host the URL parser takes: refused below.
    }
    if (!ok)
      throw new InvalidArgumentError(
        `expected host names or host:port, comma-separated; '${host}' is not one.`,
      );
  }
  return hosts;
}

export function webhookAllowHostsOption(): Option {
  return new Option(
    '--webhook-allow-hosts <hosts>',
    'comma-separated hosts (or host:port) webhooks may reach although private or loopback',
  )
    .env('MACHINIST_WEBHOOK_ALLOW_HOSTS')
    .argParser(hostList);
}
