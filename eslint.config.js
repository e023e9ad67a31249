// @ts-check
// Layer rules (docs/architecture.md, "Layers") are enforced here, not by hope (VS Code's `code-layering` idea):
//   src/shared   imports nothing outside itself: no node:*, no electron, no DOM globals.
//   src/renderer never imports src/main, node:* or electron.
//   electron     is imported only by the Electron shell (src/main/electron/**) and the preload.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const nodeBuiltins = [
  'fs',
  'fs/promises',
  'path',
  'os',
  'child_process',
  'crypto',
  'http',
  'https',
  'net',
  'stream',
  'stream/promises',
  'url',
  'util',
  'worker_threads',
  'zlib',
  'events',
  'readline',
  'buffer',
];
const noNode = [
  { group: ['node:*'], message: 'This layer must not use Node built-ins (docs/architecture.md, "Layers").' },
  ...nodeBuiltins.map((n) => ({ group: [n], message: 'This layer must not use Node built-ins.' })),
];
const noElectron = {
  group: ['electron', 'electron/*'],
  message: 'Only the Electron shell (src/main/electron) and the preload import electron.',
};
const domGlobals = ['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'HTMLElement', 'fetch'].map((name) => ({
  name,
  message: 'src/shared runs anywhere: no DOM or fetch.',
}));

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'test-results/**', 'bench/data/**', 'bin/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      'no-restricted-imports': ['error', { patterns: [noElectron] }],
    },
  },
  {
    files: ['src/shared/**/*.ts', 'src/shared/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...noNode,
            noElectron,
            {
              group: ['**/main/**', '**/renderer/**', '**/preload/**', '**/cli/**'],
              message: 'src/shared imports nothing outside itself.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...domGlobals,
        { name: 'process', message: 'src/shared runs anywhere: no process.' },
        { name: 'Buffer', message: 'src/shared runs anywhere: no Buffer.' },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...noNode,
            noElectron,
            { group: ['**/main/**', '**/preload/**'], message: 'The renderer talks to the API contract, never to src/main.' },
          ],
        },
      ],
    },
  },
  {
    // The two core hook rules, both errors: a hook called conditionally, or an effect missing a
    // dependency, renders stale or mismatched state with no error at run time.
    files: ['src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // The first toLocaleString or Intl.NumberFormat of a process loads ICU's number data (13-18 ms,
    // paid by every CLI command that prints a count), and in the page each call costs (18 ms of a
    // session's first view): src/shared/grouped.ts writes the same by hand.
    files: ['src/main/**/*.ts', 'src/shared/**/*.ts', 'src/renderer/**/*.ts', 'src/renderer/**/*.tsx'],
    ignores: ['src/shared/grouped.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='toLocaleString']",
          message: 'Use grouped() (src/shared/grouped.ts): no ICU load.',
        },
        {
          selector: "MemberExpression[object.name='Intl'][property.name='NumberFormat']",
          message: 'Use grouped() (src/shared/grouped.ts): no ICU load.',
        },
      ],
    },
  },
  {
    files: ['src/main/electron/**/*.ts', 'src/preload/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
