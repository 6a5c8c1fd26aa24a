// Type-aware lint: promises must be awaited or handled, switches exhaustive, imports across libs
// only through @vigil/<lib>; in test files no focused or skipped tests, no duplicate titles, and
// every expect completed (and awaited when it is async).
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

const SPECS = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '.dist-*/**',
      'node_modules/**',
      'coverage/**',
      '**/*.mjs',
      '**/*.cjs',
      'jest.config.js',
      'libs/tasks/src/lua/scripts.generated.ts',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../../libs/*', '../../../libs/*', '**/libs/*/src/*'],
              message: 'Import libs through @vigil/<lib>.',
            },
          ],
        },
      ],
    },
  },
  {
    files: [...SPECS, 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
    },
  },
  {
    files: SPECS,
    plugins: { jest },
    languageOptions: { globals: jest.environments.globals.globals },
    rules: {
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/no-identical-title': 'error',
      'jest/valid-expect': 'error',
    },
  },
);
