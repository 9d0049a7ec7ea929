// Writes docs/openapi.json, the HTTP API's reference: the document @fastify/swagger generates from
// the routes' own schemas (GET /openapi.json serves the same), never written by hand.
// `npm run docs:openapi`; test/http/openapiDoc.test.ts fails when the committed file is stale.

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer } from '../src/http/createServer.js';
import { MemoryStore } from '../src/store/memory/MemoryStore.js';

/** The document as GET /openapi.json answers it, formatted for the repository. */
export async function openapiText(): Promise<string> {
  const store = new MemoryStore();
  const app = createServer({ store, tokens: ['docs-generator'], logger: false });
  try {
    await app.ready();
    return JSON.stringify(app.swagger(), null, 2) + '\n';
  } finally {
    await app.close();
    await store.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
  writeFileSync(out, await openapiText());
  console.log(`wrote ${out}`);
}
