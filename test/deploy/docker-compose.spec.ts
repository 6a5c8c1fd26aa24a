/**
 * Docker cannot run in CI here, so this spec is the review of the deployment files: it reads the
 * Dockerfile as text and docker-compose.yml as YAML (merge keys on, as Compose does) and checks them
 * against the repository they are meant to ship — source files, the config contract, the apps' ports.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig, VigilConfig } from '@vigil/config';

const root = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');

// ---- Dockerfile --------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

/** Splits a Dockerfile into stages, joining `\` continuations and dropping comments. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push(`${pending}${line}`.trim());
    pending = '';
  }
  if (pending.trim()) logical.push(pending.trim());

  const stages: Stage[] = [];
  for (const line of logical) {
    const match = /^(\S+)\s*(.*)$/.exec(line)!;
    const keyword = match[1].toUpperCase();
    const args = match[2];
    if (keyword === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`unparseable FROM line: ${line}`);
      stages.push({ name: from[2] ?? `#${stages.length}`, from: from[1], instructions: [] });
    } else {
      if (stages.length === 0) {
        if (keyword === 'ARG') continue; // global ARGs before the first FROM
        throw new Error(`instruction before the first FROM: ${line}`);
      }
      stages[stages.length - 1].instructions.push({ keyword, args });
    }
  }
  return stages;
}

const dockerfileText = read('Dockerfile');
const stages = parseDockerfile(dockerfileText);
const stageByName = new Map(stages.map((stage) => [stage.name, stage]));

function stage(name: string): Stage {
  const found = stageByName.get(name);
  if (!found) throw new Error(`Dockerfile has no stage "${name}"`);
  return found;
}

/** The stage and every stage it is built FROM, nearest first. */
function lineage(name: string): Stage[] {
  const chain: Stage[] = [];
  for (let current = stageByName.get(name); current; current = stageByName.get(current.from)) {
    if (chain.includes(current)) throw new Error(`FROM cycle at ${current.name}`);
    chain.push(current);
  }
  return chain;
}

/** The effective (last-wins, inherited) instruction of that keyword for a stage. */
function effective(name: string, keyword: string): string | undefined {
  for (const s of lineage(name)) {
    const found = s.instructions.filter((i) => i.keyword === keyword).pop();
    if (found) return found.args;
  }
  return undefined;
}

function all(name: string, keyword: string): string[] {
  return stage(name)
    .instructions.filter((i) => i.keyword === keyword)
    .map((i) => i.args);
}

/** ENV values a stage sees, including those of its base stages (both `K=V` and legacy `K V` forms). */
function envOf(name: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of [...lineage(name)].reverse()) {
    for (const { keyword, args } of s.instructions) {
      if (keyword !== 'ENV') continue;
      if (!args.includes('=')) {
        const [key, ...rest] = args.split(/\s+/);
        env[key] = rest.join(' ');
        continue;
      }
      for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) {
        env[m[1]] = m[2].replace(/^"|"$/g, '');
      }
    }
  }
  return env;
}

/** A CMD/HEALTHCHECK command in exec (JSON) form. */
function execForm(args: string): string[] {
  const parsed = JSON.parse(args) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw new Error(`not an exec-form command: ${args}`);
  }
  return parsed as string[];
}

// ---- docker-compose.yml --------------------------------------------------------------------------

interface Healthcheck {
  test: string | string[];
  interval?: string;
  timeout?: string;
  retries?: number;
}

interface Service {
  image?: string;
  build?: { context: string; target?: string; args?: Record<string, string> };
  command?: string | string[];
  restart?: string;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: Healthcheck;
  environment?: Record<string, string | number | boolean | null>;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  deploy?: { replicas?: number };
  stop_grace_period?: string;
  profiles?: string[];
}

interface ComposeFile {
  version?: unknown;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const composeText = read('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as ComposeFile;
const services = compose.services ?? {};

const INTERPOLATION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}/g;

/** Compose interpolation with the given shell environment (`${V}`, `${V:-d}`, `${V-d}`, `$$`). */
function interpolate(value: string, shell: Record<string, string>): string {
  const out = value.replace(/\$\$/g, '\u0000').replace(INTERPOLATION, (whole, name: string, op, word) => {
    const set = shell[name];
    if (op === ':-') return set ? set : (word as string);
    if (op === '-') return set !== undefined ? set : (word as string);
    if (op === undefined) return set ?? '';
    throw new Error(`unsupported interpolation ${whole}`);
  });
  if (out.includes('$')) throw new Error(`unresolved "$" left in ${value}`);
  return out.replace(/\u0000/g, '$');
}

/** The environment a service's container gets when the shell sets nothing. */
function containerEnv(service: Service): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(service.environment ?? {})) {
    env[key] = interpolate(value === null ? '' : String(value), {});
  }
  return env;
}

function healthcheckCommand(service: Service): string {
  const test = service.healthcheck?.test;
  if (!test) return '';
  return Array.isArray(test) ? test.join(' ') : test;
}

// ---- the contract ------------------------------------------------------------------------------

const APPS = ['api', 'worker', 'watcher', 'notifier'] as const;
type App = (typeof APPS)[number];

/** Each app's port setting in config.ts, and its default. */
const APP_PORT: Record<App, { variable: string; port: number; field: keyof VigilConfig }> = {
  api: { variable: 'PORT', port: 3000, field: 'port' },
  worker: { variable: 'WORKER_PORT', port: 3001, field: 'workerPort' },
  watcher: { variable: 'WATCHER_PORT', port: 3002, field: 'watcherPort' },
  notifier: { variable: 'NOTIFIER_PORT', port: 3003, field: 'notifierPort' },
};

/** Runnable Dockerfile targets: what they start, the port they listen on and the route that proves it. */
const TARGETS: Record<string, { main: string; port: number; probe: string }> = {
  api: { main: 'dist/apps/api/src/main.js', port: 3000, probe: '/health' },
  worker: { main: 'dist/apps/worker/src/main.js', port: 3001, probe: '/health' },
  watcher: { main: 'dist/apps/watcher/src/main.js', port: 3002, probe: '/health' },
  notifier: { main: 'dist/apps/notifier/src/main.js', port: 3003, probe: '/health' },
  'meta-sandbox': { main: 'dist/apps/meta-sandbox/src/main.js', port: 4010, probe: '/__sandbox/stats' },
};

/** The variables the configuration contract lets operators set; each must be wired in the compose file. */
const CONFIG_CONTRACT = [
  'REDIS_URL',
  'KEY_PREFIX',
  'SHARDS',
  'PORT',
  'HEARTBEAT_INTERVAL_MS',
  'WATCHER_INTERVAL_MS',
  'STALE_AFTER_MS',
  'USER_UPDATE_INTERVAL_MS',
  'SLICE_MAX_STEPS',
  'TASK_MAX_SLICES',
  'TASK_MAX_DURATION_MS',
  'MAX_CONSECUTIVE_ERRORS',
  'RETRY_POLICY',
  'TASK_BUDGET_USD',
  'GLOBAL_SPEND_LIMIT_USD',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'GEMINI_API_KEY',
  'GEMINI_BASE_URL',
  'META_API_BASE_URL',
  'META_ACCESS_TOKEN',
  'API_KEYS',
  'ADMIN_PASSWORD',
];

/** Shared by every app: Redis location and the timing that all processes must agree on. */
const SHARED_BY_ALL_APPS = [
  'REDIS_URL',
  'KEY_PREFIX',
  'SHARDS',
  'HEARTBEAT_INTERVAL_MS',
  'WATCHER_INTERVAL_MS',
  'STALE_AFTER_MS',
  'USER_UPDATE_INTERVAL_MS',
];

/**
 * Variables the compose file may name that config.ts does not read:
 * NODE_ENV (set by the image), GIT_COMMIT (build arg shown by /version, read in libs/control),
 * META_SANDBOX_* (read by the standalone sandbox, apps/meta-sandbox/src/main.ts), META_ACCESS_TOKEN
 * (the sandbox reads it too, should config.ts ever stop doing so).
 */
const ALLOWLIST = ['NODE_ENV', 'GIT_COMMIT', 'META_SANDBOX_PORT', 'META_SANDBOX_HOST', 'META_ACCESS_TOKEN'];

const configSource = read('libs/config/src/config.ts');
const configVariables = new Set([...configSource.matchAll(/read\w+\(env, '([A-Z_]+)'/g)].map((m) => m[1]));

const environmentKeys = new Set(Object.values(services).flatMap((s) => Object.keys(s.environment ?? {})));
/** Every string value in the parsed file (comments are gone, anchors are merged). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}
const interpolations = strings(compose).flatMap((value) => [...value.matchAll(INTERPOLATION)]);
const interpolatedNames = new Set(interpolations.map((m) => m[1]));
const namedInCompose = new Set([...environmentKeys, ...interpolatedNames]);

// ---- specs -------------------------------------------------------------------------------------

describe('Dockerfile', () => {
  it('has the build pipeline stages: deps, build, prod-deps, runtime', () => {
    expect(stages.map((s) => s.name)).toEqual(
      expect.arrayContaining(['deps', 'build', 'prod-deps', 'runtime', ...Object.keys(TARGETS)]),
    );
    const names = stages.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);

    expect(all('deps', 'COPY').join('\n')).toMatch(/package-lock\.json/);
    expect(all('deps', 'RUN').join('\n')).toMatch(/\bnpm ci\b/);
    expect(all('deps', 'RUN').join('\n')).not.toMatch(/--omit=dev/);

    expect(lineage('build').map((s) => s.name)).toContain('deps');
    expect(all('build', 'RUN').join('\n')).toMatch(/\bnpm run build\b/);
    // build.mjs needs its scripts (the Lua stitching too), both tsconfigs and every source tree.
    const buildCopies = all('build', 'COPY').join('\n');
    for (const path of ['scripts', 'tsconfig.json', 'tsconfig.build.json', 'apps', 'libs']) {
      expect(buildCopies).toContain(path);
    }

    expect(all('prod-deps', 'COPY').join('\n')).toMatch(/package-lock\.json/);
    expect(all('prod-deps', 'RUN').join('\n')).toMatch(/\bnpm ci\b[^\n]*--omit=dev/);
  });

  it('runs the runtime as the non-root node user in production mode, stamped with GIT_COMMIT', () => {
    expect(effective('runtime', 'USER')).toBe('node');
    expect(envOf('runtime').NODE_ENV).toBe('production');
    expect(effective('runtime', 'STOPSIGNAL')).toBe('SIGTERM');
    expect(all('runtime', 'ARG').some((arg) => /^GIT_COMMIT\b/.test(arg))).toBe(true);
    expect(envOf('runtime').GIT_COMMIT).toBe('${GIT_COMMIT}');

    const copies = all('runtime', 'COPY');
    expect(copies.some((c) => /--from=build\b.*\/dist\b/.test(c))).toBe(true);
    expect(copies.some((c) => /--from=prod-deps\b.*node_modules/.test(c))).toBe(true);
    expect(copies.some((c) => !c.includes('--from=') && /\bpackage\.json\b/.test(c))).toBe(true);
    // Never the dev dependencies from deps/build in the shipped image.
    expect(copies.some((c) => /--from=(deps|build)\b.*node_modules/.test(c))).toBe(false);
  });

  it('pulls only pinned, non-latest base images (Node 20 bookworm-slim)', () => {
    const external = stages.map((s) => s.from).filter((from) => !stageByName.has(from));
    expect(external.length).toBeGreaterThan(0);
    for (const image of external) {
      expect(image).toMatch(/^[^:@]+(:[^:]+|@sha256:[0-9a-f]{64})$/);
      expect(image).not.toMatch(/:latest$/);
      expect(image).not.toContain('$'); // no unpinned ARG-driven base images
    }
    expect(new Set(external)).toEqual(new Set(['node:20-bookworm-slim']));
  });

  it('only copies build-context paths that exist and are not excluded by .dockerignore', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
    const sources = stages
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))
      .flatMap((i) =>
        i.args
          .split(/\s+/)
          .filter((part) => !part.startsWith('--'))
          .slice(0, -1),
      );
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'apps', 'libs']));
    for (const source of sources) {
      expect(existsSync(join(root, source))).toBe(true);
      expect(ignored).not.toContain(source);
    }
  });

  describe.each(Object.entries(TARGETS))('target %s', (name, target) => {
    it('builds on the runtime stage', () => {
      expect(lineage(name).map((s) => s.name)).toContain('runtime');
    });

    it('starts node directly on a compiled entry point that has a source file', () => {
      const cmd = execForm(effective(name, 'CMD') ?? 'null');
      expect(cmd).toEqual(['node', target.main]);
      expect(effective(name, 'ENTRYPOINT')).toBeUndefined();
      // dist/<path>.js is tsc's output for <path>.ts (tsconfig: rootDir ".", outDir "./dist").
      const source = cmd[1].replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect(existsSync(join(root, source))).toBe(true);
    });

    it('exposes its port and health-checks it with node fetch', () => {
      expect(all(name, 'EXPOSE')).toEqual([String(target.port)]);
      const healthcheck = all(name, 'HEALTHCHECK');
      expect(healthcheck).toHaveLength(1);
      const cmd = /^(?:--\S+\s+)*CMD\s+(.*)$/.exec(healthcheck[0]);
      expect(cmd).not.toBeNull();
      const [binary, flag, script] = execForm(cmd![1]);
      expect([binary, flag]).toEqual(['node', '-e']);
      expect(script).toContain('fetch(');
      expect(script).toContain(`||${target.port})`);
      expect(script).toContain(`'${target.probe}'`);
      expect(script).toMatch(/process\.exit\(1\)/);
    });
  });

  it('makes the sandbox reachable from other containers', () => {
    expect(envOf('meta-sandbox').META_SANDBOX_HOST).toBe('0.0.0.0');
  });
});

describe('.dockerignore', () => {
  it('keeps local artefacts out of the build context', () => {
    const entries = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', 'dist', '.git', 'coverage', '*.log', 'bench/results.json']) {
      expect(entries).toContain(entry);
    }
  });
});

describe('docker-compose.yml', () => {
  it('follows the Compose spec (no version key) and shares the app env through x-common-env', () => {
    expect(compose).not.toHaveProperty('version');
    expect(composeText).toMatch(/^x-common-env: &(\S+)$/m);
    const anchor = /^x-common-env: &(\S+)$/m.exec(composeText)![1];
    expect(composeText.match(new RegExp(`<<: \\*${anchor}\\b`, 'g'))?.length).toBeGreaterThanOrEqual(
      APPS.length,
    );
  });

  it('builds every service from a stage that exists in the Dockerfile', () => {
    const built = Object.entries(services).filter(([, s]) => s.build);
    expect(built.map(([name]) => name)).toEqual(expect.arrayContaining([...APPS, 'meta-sandbox']));
    for (const [name, service] of built) {
      expect(service.build?.context).toBe('.');
      expect({ name, target: service.build?.target }).toEqual({ name, target: name });
      expect(stageByName.has(service.build!.target!)).toBe(true);
      expect(dockerfileText).toMatch(
        new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${service.build!.target}\\s*$`, 'im'),
      );
      expect(service.build?.args?.GIT_COMMIT).toMatch(/^\$\{GIT_COMMIT\b/);
    }
  });

  it('never pulls a latest or untagged image', () => {
    const pulled = Object.values(services)
      .filter((s) => s.image && !s.build)
      .map((s) => s.image!);
    expect(pulled).toContain('redis:7-alpine');
    for (const image of pulled) {
      expect(image).toMatch(/^[^:@]+(:[^:]+|@sha256:[0-9a-f]{64})$/);
      expect(image).not.toMatch(/:latest$/);
    }
  });

  it('runs redis with durable persistence, a named volume and a ping healthcheck', () => {
    const redis = services.redis;
    expect(redis).toBeDefined();
    const command = Array.isArray(redis.command) ? redis.command.join(' ') : (redis.command ?? '');
    expect(command).toMatch(/^redis-server\b/);
    expect(command).toMatch(/--appendonly\s+'?yes'?(\s|$)/);
    expect(command).toMatch(/--appendfsync\s+everysec\b/);
    expect(command).not.toMatch(/--maxmemory-policy\s+(?!noeviction)/); // BullMQ needs noeviction

    const dataVolume = (redis.volumes ?? []).find((v) => v.endsWith(':/data'));
    expect(dataVolume).toBeDefined();
    const volumeName = dataVolume!.split(':')[0];
    expect(volumeName).toMatch(/^[a-z0-9][a-z0-9_.-]*$/); // named, not a bind mount
    expect(Object.keys(compose.volumes ?? {})).toContain(volumeName);

    expect(healthcheckCommand(redis)).toMatch(/redis-cli ping/);
    expect(redis.restart).toBe('unless-stopped');
  });

  describe.each(APPS)('app %s', (app) => {
    const service = (): Service => {
      const found = services[app];
      if (!found) throw new Error(`docker-compose.yml has no service "${app}"`);
      return found;
    };

    it('restarts, waits for a healthy redis and has a healthcheck on its own /health', () => {
      expect(service().restart).toBe('unless-stopped');
      expect(service().depends_on).toEqual(
        expect.objectContaining({ redis: { condition: 'service_healthy' } }),
      );
      const probe = healthcheckCommand(service());
      expect(probe).toMatch(/^CMD node -e /);
      expect(probe).toContain(`fetch('http://127.0.0.1:${APP_PORT[app].port}/health'`);
      expect(service().healthcheck?.retries).toBeGreaterThan(0);
    });

    it('gets the shared Redis and timing settings', () => {
      expect(Object.keys(service().environment ?? {})).toEqual(expect.arrayContaining(SHARED_BY_ALL_APPS));
      expect(containerEnv(service()).REDIS_URL).toBe('redis://redis:6379');
    });

    it('starts with a valid config, listening where its healthcheck and ports point', () => {
      const env = containerEnv(service());
      const config = loadConfig(env);
      const port = config[APP_PORT[app].field];
      expect(port).toBe(APP_PORT[app].port);
      expect(port).toBe(TARGETS[app].port);
      const published = [...(service().ports ?? []), ...(service().expose ?? [])].map((p) =>
        interpolate(String(p), {}),
      );
      expect(published.some((p) => p === String(port) || p.endsWith(`:${port}`))).toBe(true);
      expect(new URL(config.redisUrl).hostname).toBe('redis');
      expect(Object.keys(services)).toContain('redis');
    });

    it("uses the app's own defaults, apart from the in-network addresses", () => {
      const strip = ({ redisUrl, metaApiBaseUrl, ...rest }: VigilConfig) => {
        void redisUrl;
        void metaApiBaseUrl;
        return rest;
      };
      expect(strip(loadConfig(containerEnv(service())))).toEqual(strip(loadConfig({})));
    });

    it('names only variables that config.ts reads or the allowlist documents', () => {
      for (const key of Object.keys(service().environment ?? {})) {
        expect({ key, known: configVariables.has(key) || ALLOWLIST.includes(key) }).toEqual({
          key,
          known: true,
        });
      }
    });
  });

  it('finds the variables config.ts reads (guards the extraction regex)', () => {
    expect(configVariables.size).toBeGreaterThanOrEqual(CONFIG_CONTRACT.length);
    expect([...configVariables]).toEqual(expect.arrayContaining(['REDIS_URL', 'PORT', 'API_KEYS']));
  });

  it('names only variables that config.ts reads or the allowlist documents', () => {
    expect(namedInCompose.size).toBeGreaterThan(0);
    const unknown = [...namedInCompose].filter(
      (name) => !configVariables.has(name) && !ALLOWLIST.includes(name),
    );
    expect(unknown).toEqual([]);
  });

  it('wires every variable of the configuration contract', () => {
    // Names are taken from parsed values, so a variable mentioned only in a comment does not count.
    const missing = CONFIG_CONTRACT.filter((name) => !namedInCompose.has(name));
    expect(missing).toEqual([]);
    // An operator-set value must reach a container: every contract variable but PORT (which only
    // picks the published host port) is interpolated into some service's environment.
    const passedThrough = new Set(
      Object.values(services).flatMap((s) =>
        strings(s.environment ?? {}).flatMap((v) => [...v.matchAll(INTERPOLATION)].map((m) => m[1])),
      ),
    );
    expect(CONFIG_CONTRACT.filter((name) => name !== 'PORT' && !passedThrough.has(name))).toEqual([]);
  });

  it('keeps secrets without committed defaults', () => {
    const secrets = ['ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'API_KEYS', 'ADMIN_PASSWORD', 'WEBHOOK_SECRET'];
    for (const match of interpolations) {
      if (secrets.includes(match[1]))
        expect({ name: match[1], default: match[3] ?? '' }).toEqual({
          name: match[1],
          default: '',
        });
    }
  });

  it('publishes the api on ${PORT:-3000} and keeps the container port fixed', () => {
    expect(services.api.ports).toEqual(['${PORT:-3000}:3000']);
    expect(String(services.api.environment?.PORT)).toBe('3000');
  });

  it('scales workers and watchers, giving workers time to drain on stop', () => {
    expect(services.worker.deploy?.replicas).toBe(2);
    expect(services.worker.stop_grace_period).toBe('30s');
    expect(services.watcher.deploy?.replicas).toBe(2);
    // Replicated services cannot bind a fixed host port.
    for (const name of ['worker', 'watcher']) expect(services[name].ports).toBeUndefined();
  });

  it('runs the Meta sandbox only under the demo profile, probed on /__sandbox/stats', () => {
    const sandbox = services['meta-sandbox'];
    expect(sandbox).toBeDefined();
    expect(sandbox.profiles).toEqual(['demo']);
    expect(sandbox.build?.target).toBe('meta-sandbox');
    expect(healthcheckCommand(sandbox)).toContain("fetch('http://127.0.0.1:4010/__sandbox/stats'");
    expect(containerEnv(sandbox).META_SANDBOX_HOST).toBe('0.0.0.0');
    for (const app of APPS) expect(services[app].profiles).toBeUndefined();
    // The workers' default Meta endpoint is this service on the compose network.
    expect(new URL(containerEnv(services.worker).META_API_BASE_URL).host).toBe('meta-sandbox:4010');
  });
});
