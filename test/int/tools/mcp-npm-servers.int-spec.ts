import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { scrubSecrets } from '@vigil/platform';
import { type CatalogToolGateway, ExternalTool, ToolCallError, ToolNotAllowedError } from '@vigil/tools';
import { npmServer, tempDir, testGateway } from '@vigil/testing';

/**
 * The MCP client against the real servers published on npm, as child processes over stdio
 * (docs/missions.md, "Tools from outside"): listing, classification, result mapping,
 * argument checks, progress, `${VAR}` filled at spawn, lookups.
 */
describe('MCP tools from the npm servers', () => {
  const dir = tempDir();
  const memoryFile = join(dir, 'memory.jsonl');
  const env = {
    ...process.env,
    VIGIL_TEST_MEMORY_FILE: memoryFile,
    VIGIL_TEST_SECRET_ARG: 'sekrit-filler-value',
  };
  let gateway: CatalogToolGateway;
  const signal = new AbortController().signal;

  beforeAll(() => {
    gateway = testGateway(
      {
        mcpServers: {
          files: { command: process.execPath, args: [npmServer('server-filesystem'), dir] },
          memory: {
            command: process.execPath,
            args: [npmServer('server-memory')],
            env: { MEMORY_FILE_PATH: '${VIGIL_TEST_MEMORY_FILE}' },
            writes: {
              create_entities: {
                lookup: {
                  tool: 'search_nodes',
                  arguments: { query: '{{idempotencyKey}}' },
                  found: '/entities/0/name',
                },
              },
            },
          },
          everything: { command: process.execPath, args: [npmServer('server-everything'), 'stdio'] },
        },
        tenants: {
          acme: { allow: ['files', 'memory', 'everything'] },
          narrow: { allow: ['files.read_text_file'] },
        },
      },
      { env },
    );
  });
  afterAll(async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function tool(name: string): Promise<ExternalTool> {
    const [found] = await gateway.toolsFor('acme', [name], signal);
    return found;
  }

  it('lists a server by its name: every tool, classified by its annotations, named for models', async () => {
    const tools = await gateway.toolsFor('acme', ['files'], signal);
    const byName = new Map(tools.map((t) => [t.catalogName, t]));
    expect(byName.size).toBeGreaterThanOrEqual(10);
    const read = byName.get('files.read_text_file')!;
    expect(read).toMatchObject({
      modelName: 'files__read_text_file',
      server: 'files',
      effect: 'read',
      hasLookup: false,
    });
    expect(read.inputSchema).toMatchObject({ type: 'object', required: ['path'] });
    expect(byName.get('files.write_file')).toMatchObject({ effect: 'write', idempotent: true });
    expect(byName.get('files.edit_file')).toMatchObject({ effect: 'write', idempotent: false });
    expect(byName.get('files.move_file')?.effect).toBe('write');
  });

  it('writes and reads a file through the server, one warm child process for every call', async () => {
    const write = await tool('files.write_file');
    const pid = gateway.connection('files')!.pid;
    expect(pid).toEqual(expect.any(Number));
    const written = await write.call(
      { path: join(dir, 'note.txt'), content: 'hello from vigil' },
      { signal, idempotencyKey: 'k-1' },
    );
    expect(written.text).toMatch(/Successfully wrote/);
    expect(readFileSync(join(dir, 'note.txt'), 'utf8')).toBe('hello from vigil');
    const read = await (await tool('files.read_text_file')).call({ path: join(dir, 'note.txt') }, { signal });
    expect(read.text).toBe('hello from vigil');
    expect((read.raw as CallToolResult).content[0]).toEqual({ type: 'text', text: 'hello from vigil' });
    expect(gateway.connection('files')!.pid).toBe(pid);
  });

  it('refuses arguments that break the input schema, naming the problem, before the server sees them', async () => {
    const read = await tool('files.read_text_file');
    await expect(read.call({}, { signal })).rejects.toThrow(
      new ToolCallError(
        "files.read_text_file: the arguments do not match the tool's input schema: data must have required property 'path'",
      ),
    );
    await expect(read.call({ path: 42 }, { signal })).rejects.toThrow(/data\/path must be string/);
    const weather = await tool('everything.get-structured-content');
    await expect(weather.call({ location: 'Paris' }, { signal })).rejects.toThrow(
      /data\/location must be equal to one of the allowed values/,
    );
    await expect((await tool('everything.get-sum')).call({ a: 1, b: 'two' }, { signal })).rejects.toThrow(
      /data\/b must be number/,
    );
  });

  it('maps a server error (isError) to a ToolCallError with its text', async () => {
    const read = await tool('files.read_text_file');
    await expect(read.call({ path: join(dir, 'absent.txt') }, { signal })).rejects.toThrow(
      /^files\.read_text_file failed: .*ENOENT/,
    );
  });

  it('maps structured content, images and resources to bounded text, the raw result kept', async () => {
    const weather = await (
      await tool('everything.get-structured-content')
    ).call({ location: 'Chicago' }, { signal });
    const raw = weather.raw as CallToolResult;
    expect(raw.structuredContent).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
    // The server also sends the same JSON as text: the model sees it once.
    expect(weather.text.match(/"temperature"/g)).toHaveLength(1);

    const image = await (await tool('everything.get-tiny-image')).call({}, { signal });
    expect(image.text).toMatch(/\[image [0-9a-f]{64} image\/png 20x20, \d+ bytes\]/);
    expect(image.text).not.toMatch(/iVBOR/); // no base64 in front of a model
    // Nor in the raw result: the image is a reference there, its bytes beside it.
    expect(JSON.stringify(image.raw)).not.toMatch(/iVBOR/);
    expect(image.binaries?.map((binary) => binary.ref.mimeType)).toEqual(['image/png']);

    const links = await (await tool('everything.get-resource-links')).call({ count: 2 }, { signal });
    expect(links.text.match(/\[resource demo:\/\/resource\/\S+/g)).toHaveLength(2);

    const embedded = await (
      await tool('everything.get-resource-reference')
    ).call({ resourceType: 'Text', resourceId: 1 }, { signal });
    expect(embedded.text).toMatch(
      /\[resource demo:\/\/resource\/dynamic\/text\/1\]\nResource 1: This is a plaintext resource created at /,
    );
    const blob = await (
      await tool('everything.get-resource-reference')
    ).call({ resourceType: 'Blob', resourceId: 2 }, { signal });
    expect(blob.text).toMatch(
      /\[resource [0-9a-f]{64} [a-z]+\/[a-z-]+, \d+ bytes \(demo:\/\/resource\/dynamic\/blob\/2\)\]/,
    );
    expect(blob.binaries?.[0].name).toBe('demo://resource/dynamic/blob/2');
  });

  it('bounds a large result to 8,000 characters and says how long it was', async () => {
    const big = 'x'.repeat(20_000);
    writeFileSync(join(dir, 'big.txt'), big);
    const read = await (await tool('files.read_text_file')).call({ path: join(dir, 'big.txt') }, { signal });
    expect(read.text).toHaveLength(8_000 + '\n…(truncated, 20000 characters in all)'.length);
    expect(read.text.endsWith('…(truncated, 20000 characters in all)')).toBe(true);
    expect(((read.raw as CallToolResult).content[0] as { text: string }).text).toHaveLength(20_000);
  });

  it('reports progress notifications of a long call to onProgress', async () => {
    const progress: number[] = [];
    const result = await (
      await tool('everything.trigger-long-running-operation')
    ).call({ duration: 0.6, steps: 3 }, { signal, onProgress: () => progress.push(Date.now()) });
    expect(result.text).toMatch(/Long running operation completed/);
    // The SDK handles a notification a microtask after the message arrives, a response at once: the
    // last progress, sent just before the result, can come after the call has already ended.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(3);
  });

  it('fills ${VAR} at spawn, scrubbed from logs, and finds a write again through its lookup', async () => {
    const create = await tool('memory.create_entities');
    expect(create).toMatchObject({ effect: 'write', idempotent: false, hasLookup: true });
    const key = 'tsk_1:step-7';
    await expect(create.lookup!({ entities: [] }, { signal, idempotencyKey: key })).resolves.toBeNull();
    const args = { entities: [{ name: 'Acme', entityType: 'company', observations: [`created by ${key}`] }] };
    await create.call(args, { signal, idempotencyKey: key });
    await expect(create.lookup!(args, { signal, idempotencyKey: key })).resolves.toBe('Acme');
    // The server was spawned with MEMORY_FILE_PATH filled from the environment.
    expect(existsSync(memoryFile)).toBe(true);
    expect(scrubSecrets(`spawned with ${memoryFile}`)).toBe('spawned with [redacted]');
  });

  it('gives the same step key for the same arguments in any order, another for other arguments', async () => {
    const write = await tool('files.write_file');
    const key = write.stepKey({ path: '/a', content: 'b' });
    expect(key).toMatch(/^files\.write_file:[0-9a-f]{20}$/);
    expect(write.stepKey({ content: 'b', path: '/a' })).toBe(key);
    expect(write.stepKey({ path: '/a', content: 'c' })).not.toBe(key);
  });

  it('refuses what the tenant may not use, and a tool the server does not have', async () => {
    await expect(gateway.validate('narrow', ['files.read_text_file'], signal)).resolves.toBeUndefined();
    await expect(gateway.validate('narrow', ['files.write_file'], signal)).rejects.toThrow(
      new ToolNotAllowedError(
        'files.write_file',
        'tool "files.write_file" is not allowed for tenant "narrow"',
      ),
    );
    await expect(gateway.validate('narrow', ['files'], signal)).rejects.toBeInstanceOf(ToolNotAllowedError);
    await expect(gateway.validate('acme', ['files.rm_rf'], signal)).rejects.toThrow(
      /MCP server "files" has no tool "rm_rf" \(it has: read_file, read_text_file/,
    );
    await expect(gateway.toolsFor('nobody', ['files'], signal)).rejects.toThrow(
      'tool "files" is not allowed for tenant "nobody"',
    );
  });
});
