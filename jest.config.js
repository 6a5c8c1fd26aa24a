/**
 * Three test tiers, told apart by file name, each a jest project (`jest --selectProjects <name>`):
 * - unit        `*.spec.ts`      no Redis (REDIS_URL points at a closed port, RedisTestContext refuses), no build;
 * - int         `*.int-spec.ts`  the real Redis, in-process; every file uses its own key prefix;
 * - e2e         `*.e2e-spec.ts`  the built apps (dist/, or VIGIL_DIST_DIR) as processes, on the real Redis.
 * The global setup stitches the Lua scripts (libs/tasks/src/lua/scripts.generated.ts) before any tier.
 */
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.json');

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
      roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/bench'],
      testRegex: '.*\\.int-spec\\.ts$',
    },
    {
      ...shared,
      displayName: 'e2e',
      roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test', '<rootDir>/bench'],
      testRegex: '.*\\.e2e-spec\\.ts$',
    },
  ],
};
