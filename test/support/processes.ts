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

/** Starts apps on ports the OS picks (fixed ones collide with ephemeral ports); sets each one's `port`. */
export async function startAll(
  apps: [app: string, portVariable: string][],
  env: (extra: Record<string, string>) => Record<string, string>,
): Promise<AppProcess[]> {
  const started = apps.map(([app, variable]) => AppProcess.start(app, env({ [variable]: '0' })));
  await Promise.all(
    started.map(async (child, i) => {
      await child.waitFor(new RegExp(`vigil-${apps[i][0]} ready on port \\d+`));
      child.port = Number(/ready on port (\d+)/.exec(child.text())![1]);
    }),
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
