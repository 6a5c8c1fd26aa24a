import { randomBytes } from 'node:crypto';
import {
  loadConfig,
  loadToolCatalog,
  providersInUse,
  type ToolCatalog,
  type VigilConfig,
} from '@vigil/config';
import { ObjectKeys, objectStoreFrom } from '@vigil/object-store';
import { probeRedis } from '@vigil/redis';
import { CatalogToolGateway } from '@vigil/tools';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skipped';

/** One line of `vigil doctor`: what was checked, how it went, and what to do when it did not. */
export interface CheckResult {
  check: string;
  status: CheckStatus;
  detail: string;
}

type Env = Record<string, string | undefined>;

/** A URL as it may be printed: any password replaced. */
export function withoutPassword(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Rejects after `ms` unless `work` settles first (a check must never hang the doctor). */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The configuration without the catalog (which has a check of its own), as every app would read it. */
export function checkConfig(env: Env): { result: CheckResult; config?: VigilConfig } {
  try {
    const config = loadConfig({ ...env, VIGIL_TOOLS: undefined });
    const where = config.redisClusterNodes.length
      ? `Redis Cluster ${config.redisClusterNodes.map((node) => `${node.host}:${node.port}`).join(',')}`
      : `REDIS_URL ${withoutPassword(config.redisUrl)}`;
    const defaults = config.developmentDefaults.length
      ? `; public development defaults for ${config.developmentDefaults.join(', ')}: set them before serving real users`
      : '';
    return {
      config,
      result: {
        check: 'config',
        status: defaults ? 'warn' : 'ok',
        detail: `valid (${where}, KEY_PREFIX ${config.keyPrefix}, SHARDS ${config.shards})${defaults}`,
      },
    };
  } catch (error) {
    return { result: { check: 'config', status: 'fail', detail: `${message(error)}: fix that variable` } };
  }
}

export async function checkRedis(config: VigilConfig, timeoutMs: number): Promise<CheckResult> {
  const where = config.redisClusterNodes.length
    ? `the Redis Cluster at ${config.redisClusterNodes.map((node) => `${node.host}:${node.port}`).join(',')}`
    : withoutPassword(config.redisUrl);
  try {
    const probe = await within(timeoutMs + 1_000, `Redis at ${where}`, probeRedis(config, timeoutMs));
    const policy =
      probe.maxmemoryPolicy && probe.maxmemoryPolicy !== 'noeviction'
        ? `; maxmemory-policy is ${probe.maxmemoryPolicy}, Vigil needs noeviction (docs/operations.md, "Sizing Redis")`
        : '';
    return {
      check: 'redis',
      status: policy ? 'warn' : 'ok',
      detail: `${where} answers (Redis ${probe.version})${policy}`,
    };
  } catch (error) {
    return {
      check: 'redis',
      status: 'fail',
      detail: `cannot reach Redis at ${where}: ${message(error)}; start Redis there or set REDIS_URL (or REDIS_CLUSTER_NODES)`,
    };
  }
}

/** Writes a probe object, reads it back and deletes it. */
export async function checkObjectStore(config: VigilConfig, timeoutMs: number): Promise<CheckResult> {
  let location = withoutPassword(config.objectStoreUrl);
  try {
    const store = objectStoreFrom(config);
    location = store.location;
    const key = ObjectKeys.doctorProbe(randomBytes(8).toString('hex'));
    const body = Buffer.from(`vigil doctor ${new Date().toISOString()}`);
    await within(timeoutMs, `the object store at ${location}`, store.put(key, body, 'text/plain'));
    const read = await within(timeoutMs, `the object store at ${location}`, store.get(key));
    await within(timeoutMs, `the object store at ${location}`, store.delete(key));
    if (!read?.equals(body)) throw new Error(`${key} read back ${read ? 'different bytes' : 'nothing'}`);
    return {
      check: 'object store',
      status: 'ok',
      detail: `${location}: a probe object written, read back and deleted`,
    };
  } catch (error) {
    return {
      check: 'object store',
      status: 'fail',
      detail: `${location}: ${message(error)}; check OBJECT_STORE_URL (and S3_ENDPOINT, the AWS credentials for s3://)`,
    };
  }
}

/** The catalog VIGIL_TOOLS names, parsed as every app parses it at boot. */
export function checkCatalog(env: Env): { result: CheckResult; catalog?: ToolCatalog } {
  if (!env.VIGIL_TOOLS?.trim())
    return { result: { check: 'catalog', status: 'ok', detail: 'no VIGIL_TOOLS: no tools from outside' } };
  try {
    const catalog = loadToolCatalog(env)!;
    // Whatever the rest of the configuration checks about the catalog, too.
    loadConfig(env);
    const servers = Object.keys(catalog.mcpServers).length;
    const http = Object.keys(catalog.httpTools).length;
    const tenants = Object.keys(catalog.tenants).length;
    return {
      catalog,
      result: {
        check: 'catalog',
        status: 'ok',
        detail: `${catalog.path}: ${servers} MCP servers, ${http} HTTP tools, ${tenants} tenants`,
      },
    };
  } catch (error) {
    return { result: { check: 'catalog', status: 'fail', detail: `${message(error)}: fix that entry` } };
  }
}

/** Starts every MCP server of the catalog and lists its tools, as a Worker would on first use. */
export async function checkMcpServers(
  catalog: ToolCatalog,
  config: Pick<VigilConfig, 'toolCallTimeoutMs' | 'toolsAllowPrivate'>,
  env: Env,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const gateway = new CatalogToolGateway(catalog, {
    toolCallTimeoutMs: Math.min(config.toolCallTimeoutMs, timeoutMs),
    allowPrivate: config.toolsAllowPrivate,
    env,
  });
  try {
    return await Promise.all(
      gateway.serverNames().map(async (server): Promise<CheckResult> => {
        const check = `mcp ${server}`;
        try {
          const tools = await within(
            timeoutMs + 1_000,
            `MCP server "${server}"`,
            gateway.serverToolNames(server),
          );
          const names = tools.slice(0, 8).join(', ') + (tools.length > 8 ? ', …' : '');
          return { check, status: 'ok', detail: `started; lists ${tools.length} tools (${names})` };
        } catch (error) {
          return {
            check,
            status: 'fail',
            detail: `${message(error)}; fix mcpServers.${server} in ${catalog.path}`,
          };
        }
      }),
    );
  } finally {
    await gateway.close();
  }
}

/** Which provider runs each model: a key, or the scripted driver (offline, deterministic). */
export function checkModels(config: VigilConfig): CheckResult {
  const providers = providersInUse(config);
  const listed = Object.entries(providers)
    .map(([model, provider]) => `${model} → ${provider}`)
    .join(', ');
  const scripted = Object.entries(providers).filter(([, provider]) => provider === 'scripted');
  if (scripted.length === 0) return { check: 'models', status: 'ok', detail: `${listed} (keys set)` };
  const missing = [
    ...(config.anthropicApiKey ? [] : ['ANTHROPIC_API_KEY']),
    ...(config.geminiApiKey ? [] : ['GEMINI_API_KEY']),
  ];
  return {
    check: 'models',
    status: 'warn',
    detail: `${listed}: no ${missing.join(' or ')}, so the scripted driver runs (offline, for demos and tests); set the key for real models`,
  };
}
