import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppProcess } from '@vigil/testing';

/** The built apps must exist: these tests run them as real processes, as in production. */
export function assertBuilt(): void {
  const dist = process.env.VIGIL_DIST_DIR ?? 'dist';
  const entry = join(__dirname, '../..', dist, 'apps/notifier/src/main.js');
  if (!existsSync(entry))
    throw new Error(`${entry} is missing: build first (VIGIL_DIST_DIR=${dist} npm run build)`);
}

export async function startAll(
  apps: [app: string, portVariable: string, port: number][],
  env: (extra: Record<string, string>) => Record<string, string>,
): Promise<AppProcess[]> {
  const started = apps.map(([app, variable, port]) =>
    AppProcess.start(app, env({ [variable]: String(port) })),
  );
  await Promise.all(
    started.map((child, i) => child.waitFor(new RegExp(`vigil-${apps[i][0]} ready on port ${apps[i][2]}`))),
  );
  return started;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the promise, or rejects after `ms` — without leaving a timer behind. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
