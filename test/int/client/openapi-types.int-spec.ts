import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RedisTestContext } from '@vigil/testing';
import { InProcessApi } from '../../support/in-process-api';

const run = promisify(execFile);
const ROOT = join(__dirname, '../../..');

/** `generate-client-types.mjs --check` on a document: its exit code and what it said. */
async function check(document: unknown): Promise<{ code: number; output: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'vigil-openapi-')), 'docs.json');
  writeFileSync(file, JSON.stringify(document));
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['scripts/generate-client-types.mjs', '--check', '--document', file],
      { cwd: ROOT },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/**
 * The typed client's committed types against the API (docs/cli.md, "The typed client"): what
 * openapi-typescript makes of the document the API module serves at /docs-json is byte for byte
 * libs/client/src/openapi.generated.ts. A route, a DTO or a response schema changed without
 * `npm run generate:client` fails here.
 */
describe('the typed client stays generated from the served OpenAPI document', () => {
  const ctx = new RedisTestContext('client-openapi');
  let document: { components: { schemas: { Task: { properties: Record<string, unknown> } } } };

  beforeAll(async () => {
    const api = await InProcessApi.start(ctx);
    document = (await (await fetch(`${api.baseUrl}/docs-json`)).json()) as typeof document;
  });

  afterAll(() => ctx.close());

  it('matches libs/client/src/openapi.generated.ts', async () => {
    expect(await check(document)).toEqual({
      code: 0,
      output:
        'generate-client-types: libs/client/src/openapi.generated.ts matches the served OpenAPI document\n',
    });
  });

  it('fails, naming the fix, when the served document changes', async () => {
    const changed = structuredClone(document);
    changed.components.schemas.Task.properties.newField = { type: 'string' };
    const result = await check(changed);
    expect(result.code).toBe(1);
    expect(result.output).toContain('differs from the served OpenAPI document');
    expect(result.output).toContain('run npm run generate:client');
  });
});
