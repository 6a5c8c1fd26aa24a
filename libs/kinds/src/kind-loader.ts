import { resolve } from 'node:path';
import { KIND_KIT, type KindKit } from './kind-kit';
import type { TaskKind } from './task-kind';

/** A code kind's module that cannot be used: names the module and the problem; the process stops. */
export class KindModuleError extends Error {
  constructor(
    readonly modulePath: string,
    readonly problem: string,
  ) {
    super(`kind module ${modulePath}: ${problem}`);
    this.name = 'KindModuleError';
  }
}

/** What a module may export as `kinds` (or as its default export, or as `module.exports` itself). */
type KindsExport = TaskKind[] | ((kit: KindKit) => TaskKind[]);

function exportedKinds(loaded: unknown): unknown {
  const module = loaded as { kinds?: unknown; default?: unknown } | null;
  if (module && typeof module === 'object' && 'kinds' in module) return module.kinds;
  if (module && typeof module === 'object' && 'default' in module) {
    const fallback = module.default as { kinds?: unknown } | null;
    return fallback && typeof fallback === 'object' && 'kinds' in fallback ? fallback.kinds : fallback;
  }
  return loaded;
}

/**
 * Loads the code kinds of VIGIL_KINDS (docs/kinds.md, "Code kinds"): each path resolved from
 * the process's working directory and `require`d; its `kinds` export is an array of TaskKind or a
 * function `(kit) => TaskKind[]` given KIND_KIT. Only loading is checked here; KindRegistry
 * validates each kind as it registers it.
 */
export function loadKindModule(modulePath: string, cwd = process.cwd()): TaskKind[] {
  const absolute = resolve(cwd, modulePath);
  let loaded: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module named at boot, by path
    loaded = require(absolute);
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new KindModuleError(modulePath, `cannot be loaded (${absolute}): ${why}`);
  }
  let kinds = exportedKinds(loaded) as KindsExport | unknown;
  if (typeof kinds === 'function') {
    try {
      kinds = (kinds as (kit: KindKit) => unknown)(KIND_KIT);
    } catch (error) {
      throw new KindModuleError(
        modulePath,
        `its kinds function threw: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if (!Array.isArray(kinds) || kinds.length === 0)
    throw new KindModuleError(
      modulePath,
      'exports no kinds: export `kinds`, a non-empty array of task kinds or a function (kit) => kinds',
    );
  return kinds as TaskKind[];
}
