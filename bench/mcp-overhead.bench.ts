import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseToolCatalog } from '@vigil/config';
import { CatalogToolGateway } from '@vigil/tools';
import { ROOT } from './lib/dist';
import type { Bench, BenchResults } from './lib/result';
import { median, percentile, round } from './lib/stats';

const SERVER = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** Microseconds one call took. */
async function micros(call: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await call();
  return Number(process.hrtime.bigint() - start) / 1_000;
}

/**
 * What Vigil adds to one MCP tool call (issue 12, bench): the same `read_text_file` of a small file
 * on `@modelcontextprotocol/server-filesystem` over stdio, made with the SDK Client directly and
 * through ExternalTool.call (argument validation, deadline and signal, result mapping), each on its
 * own warm server process. Both clients listed the tools first, so the SDK validates the output
 * schema in both. `--quick`: 500 calls each way, else 4,000.
 */
export const runMcpOverheadBench: Bench = async ({ quick, log }) => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-tools-bench-'));
  const path = join(dir, 'read-me.txt');
  writeFileSync(path, 'a small file the bench reads over and over\n'.repeat(4));
  const direct = new Client({ name: 'bench-direct', version: '1.0.0' });
  const gateway = new CatalogToolGateway(
    parseToolCatalog(
      {
        mcpServers: { files: { command: process.execPath, args: [SERVER, dir] } },
        tenants: { bench: { allow: ['files.read_text_file'] } },
      },
      'bench-catalog.json',
      process.env,
    ),
    { toolCallTimeoutMs: 30_000, allowPrivate: false },
  );
  try {
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [SERVER, dir], stderr: 'pipe' }),
    );
    await direct.listTools();
    const signal = new AbortController().signal;
    const [tool] = await gateway.toolsFor('bench', ['files.read_text_file'], signal);
    const viaSdk = () => direct.callTool({ name: 'read_text_file', arguments: { path } });
    const viaVigil = () => tool.call({ path }, { signal });
    const [first, second] = await Promise.all([viaSdk(), viaVigil()]);
    if (JSON.stringify(first.content) !== JSON.stringify((second.raw as { content: unknown }).content))
      throw new Error('the two paths read different results');

    const calls = quick ? 500 : 4_000;
    for (let i = 0; i < 100; i++) {
      await viaSdk();
      await viaVigil();
    }
    const sdkMicros: number[] = [];
    const vigilMicros: number[] = [];
    // Calls alternate one by one (the order flipped every call), so load from anything else on the
    // machine falls on both paths alike; medians keep one stalled call from moving the figure.
    for (let i = 0; i < calls; i++) {
      if (i % 2 === 0) {
        sdkMicros.push(await micros(viaSdk));
        vigilMicros.push(await micros(viaVigil));
      } else {
        vigilMicros.push(await micros(viaVigil));
        sdkMicros.push(await micros(viaSdk));
      }
    }
    log(`mcp-overhead: ${calls} calls each way`);
    const sdk = median(sdkMicros);
    const vigil = median(vigilMicros);
    const results: BenchResults = {
      'mcp_overhead.ratio': {
        value: round(vigil / sdk),
        unit: '×',
        note: `median call time through ExternalTool.call ÷ median of the same call with the SDK Client directly (${calls} calls each, alternating, server-filesystem over stdio)`,
        target: 'close to 1',
        details: {
          sdkMicrosPerCall: round(sdk),
          vigilMicrosPerCall: round(vigil),
          overheadMicrosPerCall: round(vigil - sdk),
          sdkP90Micros: round(percentile(sdkMicros, 90)),
          vigilP90Micros: round(percentile(vigilMicros, 90)),
          callsEachWay: calls,
        },
      },
    };
    return results;
  } finally {
    await direct.close().catch(() => undefined);
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
};
