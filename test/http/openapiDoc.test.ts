// docs/openapi.json is the HTTP reference the docs link to: it must be exactly what the server
// generates from its routes' schemas (`npm run docs:openapi` writes it), and a valid OpenAPI
// 3.0.3 document as an independent validator (@apidevtools/swagger-parser) reads it, so code
// generators and gateways that load it do not refuse it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { openapiText } from '../../scripts/openapi.js';

describe('docs/openapi.json', () => {
  it('is the document the server generates (run npm run docs:openapi after changing a route)', async () => {
    const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
    assert.ok(committed === (await openapiText()), 'docs/openapi.json is stale: run npm run docs:openapi');
  });

  it('is valid OpenAPI 3.0.3 by an independent validator (swagger-parser)', async () => {
    // What GET /openapi.json serves (the test above holds the committed copy to it).
    const doc = JSON.parse(await openapiText()) as { openapi: string };
    assert.equal(doc.openapi, '3.0.3');
    // validate() dereferences in place: it gets its own copy.
    await SwaggerParser.validate(structuredClone(doc) as never);
  });
});
