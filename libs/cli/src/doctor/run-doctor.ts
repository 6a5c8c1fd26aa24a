import type { Printer } from '../printer';
import { table } from '../table';
import {
  checkCatalog,
  checkConfig,
  checkMcpServers,
  checkModels,
  checkObjectStore,
  checkRedis,
  type CheckResult,
} from './doctor-checks';

export interface DoctorOptions {
  json: boolean;
  env: Record<string, string | undefined>;
  /** How long Redis, the object store and each MCP server may take to answer (default 5 s). */
  timeoutMs?: number;
}

const skipped = (check: string): CheckResult => ({
  check,
  status: 'skipped',
  detail: 'not checked: the configuration above is invalid',
});

/**
 * `vigil doctor` (docs/cli.md, "doctor"): the configuration, Redis, the object store, the tool
 * catalog and each of its MCP servers, the model keys — each checked the way the apps use them,
 * one line each. Answers 1 when any check failed (each failure says what to fix), else 0.
 */
export async function runDoctor(printer: Printer, options: DoctorOptions): Promise<number> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const { result: configResult, config } = checkConfig(options.env);
  const { result: catalogResult, catalog } = checkCatalog(options.env);
  const results: CheckResult[] = [configResult];
  if (config) {
    const [redis, store] = await Promise.all([
      checkRedis(config, timeoutMs),
      checkObjectStore(config, timeoutMs),
    ]);
    results.push(redis, store, catalogResult);
    if (catalog) results.push(...(await checkMcpServers(catalog, config, options.env, timeoutMs)));
    results.push(checkModels(config));
  } else {
    results.push(skipped('redis'), skipped('object store'), catalogResult, skipped('models'));
  }
  const failed = results.filter((result) => result.status === 'fail');
  if (options.json) printer.json({ ok: failed.length === 0, checks: results });
  else {
    const rows = table(
      results.map((result) => [
        result.status === 'fail' ? 'FAIL' : result.status,
        result.check,
        result.detail,
      ]),
    );
    rows.forEach((text, i) => {
      const status = results[i].status;
      printer.line({
        text,
        tone: status === 'fail' ? 'bad' : status === 'warn' ? 'warn' : status === 'ok' ? 'good' : 'dim',
      });
    });
    printer.line(
      failed.length === 0
        ? 'doctor: no problem found'
        : `doctor: ${failed.length} problem${failed.length === 1 ? '' : 's'}: ${failed.map((result) => result.check).join(', ')}`,
    );
  }
  return failed.length === 0 ? 0 : 1;
}
