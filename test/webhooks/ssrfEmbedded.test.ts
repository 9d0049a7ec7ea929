// IPv6 addresses that carry an IPv4 address inside them reach that IPv4 host through a
// translator (NAT64 64:ff9b::/96, SIIT ::ffff:0:a.b.c.d, 6to4 2002::/16, Teredo 2001::/32):
// the SSRF guard judges them by the IPv4 address they carry, as it does the IPv4-mapped form.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicAddress } from '../../src/webhooks/addressGuard.js';
import { sendWebhook } from '../../src/webhooks/sendWebhook.js';

describe('SSRF guard: IPv4 inside IPv6', () => {
  it('refuses translated forms of loopback, private and link-local IPv4', () => {
    for (const a of [
      '64:ff9b::7f00:1',
      '64:ff9b::127.0.0.1',
      '64:ff9b::a00:1',
      '64:ff9b::a9fe:a9fe',
      '::ffff:0:7f00:1',
      '::ffff:0:169.254.169.254',
      '2002:7f00:1::',
      '2002:a00:1::1',
      '2002:c0a8:101::1',
      '2001::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ])
      assert.equal(isPublicAddress(a), false, a);
  });

  it('lets the same forms of public IPv4, and plain public IPv6, through', () => {
    for (const a of ['64:ff9b::808:808', '2002:808:808::1', '2606:4700::1111', '::ffff:8.8.8.8', '8.8.8.8'])
      assert.equal(isPublicAddress(a), true, a);
  });

  it('sends nothing to such a literal', async () => {
    const o = { headers: {}, body: '{}', allowHosts: new Set<string>(), timeoutMs: 2000 };
    for (const url of [
      'http://[64:ff9b::7f00:1]:9/',
      'http://[2002:7f00:1::]:9/',
      'http://[::ffff:0:7f00:1]:9/',
    ]) {
      const r = await sendWebhook(url, o);
      assert.equal(r.result, 'refused', `${url}: ${JSON.stringify(r)}`);
    }
  });
});
