import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppName, AppProcess } from '@vigil/testing';

/** Starts a built app (from .dist-bench) as its own process and waits for its ready line. */
export async function startApp(
  dist: string,
  app: AppName,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<AppProcess> {
  const portVariable = {
    api: 'PORT',
    worker: 'WORKER_PORT',
    watcher: 'WATCHER_PORT',
    notifier: 'NOTIFIER_PORT',
  };
  const child = track(
    AppProcess.start(app, { [portVariable[app]]: '0', ...env }, join(dist, `apps/${app}/src/main.js`)),
  );
  try {
    await child.waitFor(new RegExp(`vigil-${app} ready`), timeoutMs);
  } catch (error) {
    child.signal('SIGKILL');
    throw error;
  }
  return child;
}

/** Resident set size of a process in KiB, from /proc/<pid>/status (VmRSS). */
export function vmRssKiB(pid: number): number {
  return parseVmRss(readFileSync(`/proc/${pid}/status`, 'utf8'));
}

export function parseVmRss(status: string): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error('no VmRSS line in /proc/<pid>/status');
  return Number(match[1]);
}

const started = new Set<AppProcess>();

/** Every process a bench started, so the runner can kill leftovers if it is interrupted. */
export function track(child: AppProcess): AppProcess {
  started.add(child);
  void child.exited().then(() => started.delete(child));
  return child;
}

export function killLeftovers(): void {
  for (const child of started) child.signal('SIGKILL');
}

/** CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number, thread?: number): number {
  const stat = readFileSync(
    thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`,
    'utf8',
  );
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** CPU ms of a process's main thread (its JavaScript), without GC helper and libuv pool threads. */
export function mainThreadCpuMs(pid: number): number {
  return cpuMs(pid, pid);
}

/** USER_HZ: 100 on every mainstream Linux build. */
const CLOCK_TICKS = 100;
