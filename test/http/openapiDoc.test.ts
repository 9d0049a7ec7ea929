// docs/openapi.json is the HTTP reference the docs link to: it must be exactly what the server
// generates from its routes' schemas (`npm run docs:openapi` writes it).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openapiText } from '../../scripts/openapi.js';

describe('docs/openapi.json', () => {
  it('is the document the server generates (run npm run docs:openapi after changing a route)', async () => {
    const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
    assert.ok(committed === (await openapiText()), 'docs/openapi.json is stale: run npm run docs:openapi');
  });
});
