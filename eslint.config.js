import js from '@eslint/js'
import importX, { createNodeResolver } from 'eslint-plugin-import-x'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

/*
 * The layers ARCHITECTURE.md describes, as import rules (paths from the repository's root). Inside
 * the server, bottom up: the foundation (config, errors, db/, lib/, pdf-geometry/), the domain
 * modules, then the doors (http/ with app.ts and server.ts, admin/, mcp/). A layer imports only
 * what is below it; the packages share nothing with the server but @signet/vocabulary.
 */
const SERVER = 'packages/server/src'
const DOMAIN = ['accounts', 'actors', 'adapters', 'api-keys', 'audit', 'billing', 'documents', 'mail', 'operator', 'orgs', 'pdf-work', 'rate-limits']
  .concat(['seal', 'signing', 'templates', 'webhooks', 'events', 'idempotency', 'metrics', 'services.ts', 'compose-services.ts'])
  .map((module) => `${SERVER}/${module}`)
const FOUNDATION = ['config.ts', 'errors.ts', 'db', 'lib', 'pdf-geometry'].map((module) => `${SERVER}/${module}`)
const LAYER_ZONES = [
  {
    target: [`${SERVER}/!(http)/**`, `${SERVER}/!(app|server).ts`],
    from: `${SERVER}/http`,
    message: 'Only app.ts and server.ts mount http/: domain code takes services and an Actor, never a request.',
  },
  { target: [...DOMAIN, ...FOUNDATION], from: [`${SERVER}/admin`, `${SERVER}/mcp`], message: 'admin/ and mcp/ are doors onto the domain, like http/.' },
  // config.ts reads the PDF limits' and pool's settings into the shapes pdf-work/limits.ts declares.
  ...DOMAIN.map((from) => ({
    target: FOUNDATION,
    from,
    except: from.endsWith('/pdf-work') ? ['./limits.ts'] : [],
    message: 'The foundation imports no domain module.',
  })),
  { target: ['packages/verify', 'packages/web', 'packages/vocabulary'], from: 'packages/server', message: 'The server is reached over HTTP, never imported.' },
  { target: ['packages/verify', 'packages/vocabulary'], from: 'packages/web' },
  // The integrator's kit is what an integrator installs: it reaches the server over HTTP (its tests start one as a process).
  {
    target: ['packages/sdk/src', 'packages/cli/src', 'packages/cli/bin', 'packages/embed/src'],
    from: ['packages/server', 'packages/web'],
    message: "The integrator's kit reaches the server over HTTP, never by import.",
  },
]

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '**/drizzle/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'vitest.config.ts', 'scripts/*.mjs', 'packages/web/scripts/*.mjs', 'packages/server/scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Fastify plugins are async by contract even when they register synchronously.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Imports are written with their .ts extension, so Node's own resolution finds every file; the
    // workspace's packages by their `source` export condition (their TypeScript, not a build).
    files: ['**/*.{ts,tsx,js,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ conditionNames: ['source', 'import', 'require', 'default'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      // Run-time cycles only: the rule passes over `import type` (a type-only cycle costs nothing when the code runs).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-unresolved': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: LAYER_ZONES }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // The dashboard (React, bundled by Vite), type-checked through packages/web/tsconfig.json.
    files: ['packages/web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', location: 'readonly', fetch: 'readonly' } },
    rules: {
      // TanStack Router's redirect() is thrown by design.
      '@typescript-eslint/only-throw-error': ['error', { allow: [{ from: 'package', package: '@tanstack/router-core', name: 'Redirect' }] }],
    },
  },
  {
    // Hooks live in .ts modules too (each feature's queries.ts); every recommended rule is an error, none a warning.
    files: ['packages/web/src/**/*.{ts,tsx}'],
    plugins: reactHooks.configs.flat['recommended-latest'].plugins,
    rules: Object.fromEntries(Object.keys(reactHooks.configs.flat['recommended-latest'].rules).map((rule) => [rule, 'error'])),
  },
  { files: ['packages/web/src/**/*.tsx'], ...jsxA11y.flatConfigs.recommended },
  {
    // Components reach the server only through their feature's queries.ts (keys, loaders, invalidation in one place).
    files: ['packages/web/src/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '/api/client\\.ts$',
              importNames: ['api', 'unwrap', 'fetchRaw'],
              message: "Call the API from the feature's queries.ts (a queryOptions or a mutation hook), not from a component.",
            },
          ],
        },
      ],
    },
  },
  {
    // The second sign-in step replaces the password form the person just sent: focus goes to the step's one control.
    files: ['packages/web/src/features/auth/SecondStepForm.tsx'],
    rules: { 'jsx-a11y/no-autofocus': 'off' },
  },
)
