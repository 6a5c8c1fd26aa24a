/**
 * Three test tiers, told apart by file name, each a jest project (`jest --selectProjects <name>`):
 * - unit        `*.spec.ts`      beside the code; no Redis (REDIS_URL points at a closed port,
 *                                RedisTestContext refuses), no build;
 * - int         `*.int-spec.ts`  under test/int/<lib-or-area>/; the real Redis, in-process; every file
 *                                uses its own key prefix;
 * - e2e         `*.e2e-spec.ts`  under test/e2e/<area>/; the built apps (dist/, or VIGIL_DIST_DIR) as
 *                                processes, on the real Redis.
 * Shared setup lives in libs/testing (@vigil/testing) and test/support/. The global setup stitches
 * the Lua scripts (libs/tasks/src/lua/scripts.generated.ts) before any tier.
 */
const { readdirSync } = require('node:fs');
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.json');

// A tier's specs are found only in its folder; one written anywhere else would never run, so it
// stops every tier here instead.
const misplaced = ['apps', 'libs', 'bench', 'test']
  .flatMap((dir) => readdirSync(`${__dirname}/${dir}`, { recursive: true }).map((file) => `${dir}/${file}`))
  .filter(
    (file) =>
      (file.endsWith('.int-spec.ts') && !file.startsWith('test/int/')) ||
      (file.endsWith('.e2e-spec.ts') && !file.startsWith('test/e2e/')),
  );
if (misplaced.length)
  throw new Error(
    `int specs belong under test/int/, e2e specs under test/e2e/: move ${misplaced.join(', ')}`,
  );

const shared = {
  testEnvironment: 'node',
  rootDir: '.',
  modulePathIgnorePatterns: ['<rootDir>/dist', '<rootDir>/.dist-'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
  setupFiles: ['<rootDir>/test/setup-env.js'],
};

module.exports = {
  globalSetup: '<rootDir>/test/global-setup.mjs',
  // A global option: jest ignores testTimeout inside a project.
  testTimeout: 60000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/bench'],
      testRegex: '.*\\.spec\\.ts$',
      setupFiles: [...shared.setupFiles, '<rootDir>/test/setup-unit.js'],
    },
    {
      ...shared,
      displayName: 'int',
      roots: ['<rootDir>/test/int'],
      testRegex: '.*\\.int-spec\\.ts$',
    },
    {
      ...shared,
      displayName: 'e2e',
      roots: ['<rootDir>/test/e2e'],
      testRegex: '.*\\.e2e-spec\\.ts$',
    },
  ],
};
