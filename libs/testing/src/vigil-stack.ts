import { join } from 'node:path';
import { TaskRecord, TaskRepository } from '@vigil/tasks';
import { APP_WAIT_MS, AppName, AppProcess } from './app-process';
import { HttpClient } from './http-client';
import { RedisTestContext } from './redis-test-context';

/**
 * Vigil's apps as real processes sharing one test key prefix, with compressed timings: for tests
 * about processes (SIGKILL a worker, run three watchers). `ctx.close()` stops them all. Tenant
 * `acme` has the key of `api`, the client of the last API started, unless `env` sets API_KEYS.
 */
export class VigilStack {
  readonly processes: AppProcess[] = [];
  readonly tasks: TaskRepository;
  readonly env: Record<string, string>;
  api?: HttpClient;
  /** How long `start` waits for an app's ready line (a loaded machine boots slowly). */
  readyTimeoutMs = APP_WAIT_MS;

  constructor(
    readonly ctx: RedisTestContext,
    env: Record<string, string>,
  ) {
    this.env = { API_KEYS: 'acme:test-key-0001', ...env };
    this.tasks = new TaskRepository(ctx.redis, ctx.keys, ctx.config);
    ctx.onClose(() => this.stopAll());
  }

  /** Starts one of each app named, in order (by default the API, a Watcher and a Worker). */
  async startAll(apps: AppName[] = ['api', 'watcher', 'worker']): Promise<void> {
    for (const app of apps) await this.start(app);
  }

  /** `distDir`: run the app from another build (e.g. a second code version), default VIGIL_DIST_DIR or dist/. */
  async start(app: AppName, extraEnv: Record<string, string> = {}, distDir?: string): Promise<AppProcess> {
    const portVariable = {
      api: 'PORT',
      worker: 'WORKER_PORT',
      watcher: 'WATCHER_PORT',
      notifier: 'NOTIFIER_PORT',
    }[app];
    // Port 0: the OS picks a free port. A fixed range collides now and then with the ephemeral
    // ports of outgoing connections (EADDRINUSE); the app names the port it got in its ready line.
    const script = distDir ? join(distDir, `apps/${app}/src/main.js`) : undefined;
    const process = AppProcess.start(
      app,
      { ...this.ctx.env(this.env), [portVariable]: '0', ...extraEnv },
      script,
    );
    this.processes.push(process);
    await process.waitFor(new RegExp(`vigil-${app} ready on port \\d+`), this.readyTimeoutMs);
    const port = /ready on port (\d+)/.exec(process.text())![1];
    process.port = Number(port);
    if (app === 'api') this.api = new HttpClient(`http://127.0.0.1:${port}`, 'test-key-0001');
    return process;
  }

  async waitForTask(
    id: string,
    predicate: (task: TaskRecord) => boolean,
    timeoutMs = 30_000,
    what = 'condition',
  ): Promise<TaskRecord> {
    const deadline = Date.now() + timeoutMs;
    let task: TaskRecord | null = null;
    while (Date.now() < deadline) {
      task = await this.tasks.get(id);
      if (task && predicate(task)) return task;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seen = task && {
      status: task.status,
      attempt: task.attempt,
      completedUnits: task.completedUnits,
      currentStep: task.currentStep,
      retryHistory: task.retryHistory,
      failure: task.failure,
    };
    throw new Error(`task ${id}: ${what} not reached in ${timeoutMs} ms; last seen ${JSON.stringify(seen)}`);
  }

  async stopApps(app: AppName): Promise<void> {
    await Promise.all(
      this.processes.filter((process) => process.name === app).map((process) => process.stop()),
    );
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.processes.map((process) => process.stop()));
  }
}
