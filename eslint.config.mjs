// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Not type-aware on purpose: type-aware rules need a full TypeScript program per run, which is
// slow on the 2-core CI machines; `npm run typecheck` covers types.
export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.conveyor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The dashboard's scripts run in the browser as ES modules, served as they are (no build step).
  {
    files: ['libs/conveyor/src/http/dashboard/assets/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
);
