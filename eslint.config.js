// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import floors from './scripts/eslint/floors.js';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'drizzle/**', 'dist/**', 'web/dist/**', 'packages/*/dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // The dashboard: hooks called in order, effects listing what they read.
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    // Imports point down the floors of src/ (scripts/eslint/floors.js, docs/architecture.md).
    files: ['src/**/*.{ts,tsx}'],
    plugins: { mindprint: floors },
    rules: { 'mindprint/floors': 'error' },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
