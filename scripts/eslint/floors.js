// @ts-check
/**
 * The floors of src/ (docs/architecture.md), as an ESLint rule: imports point down only.
 *
 *   boot > clients > features > engines > lib        platform: the ground, for features and boot
 *
 * - main.ts, config.ts and deps.ts sit at the top of src/ and may import anything; config.ts and
 *   deps.ts (settings and the Deps every route, service and job receives) may be imported by
 *   boot, clients, features and platform (config.ts only).
 * - lib and engines are pure: lib imports only lib, engines only engines and lib.
 * - A feature imports another only through that feature's index.ts, and only one way: features
 *   are ranked in FEATURE_ORDER, and a feature may import only features ranked before it.
 *
 * A rule of our own rather than no-restricted-imports: the floors need the importing file's
 * place and the resolved target, which path patterns of relative specifiers cannot express.
 */
import path from 'node:path';

/** @type {Record<string, string[]>} floor -> floors (and top files) it may import */
const ALLOWED = {
  boot: ['boot', 'clients', 'features', 'engines', 'lib', 'platform', 'config.ts', 'deps.ts'],
  clients: ['clients', 'features', 'engines', 'lib', 'platform', 'config.ts', 'deps.ts'],
  features: ['features', 'engines', 'lib', 'platform', 'config.ts', 'deps.ts'],
  engines: ['engines', 'lib'],
  lib: ['lib'],
  platform: ['platform', 'config.ts'],
};

/** Features from the ground up: each may import (through index.ts) only those before it. */
export const FEATURE_ORDER = ['usage', 'keys', 'users', 'tags', 'minds', 'memory', 'profile', 'snapshots', 'questionnaire', 'simulations', 'fidelity', 'webhooks', 'exports'];

/** @param {string} file absolute */
function placeOf(file, srcRoot) {
  const rel = path.relative(srcRoot, file).split(path.sep);
  if (rel[0] === '..' || rel.length === 0) return null;
  if (rel.length === 1) return { floor: rel[0], feature: null };
  return { floor: rel[0], feature: rel[0] === 'features' ? rel[1] : null, inner: rel.slice(2).join('/') };
}

/** @type {import('eslint').Rule.RuleModule} */
export const floorsRule = {
  meta: { type: 'problem', schema: [], messages: { floor: '{{from}} may not import {{to}} ({{why}}); see docs/architecture.md' } },
  create(context) {
    const file = context.filename;
    const srcRoot = path.join(context.cwd, 'src');
    const from = placeOf(file, srcRoot);
    if (!from || !ALLOWED[from.floor]) return {};
    /** @param {any} node @param {string} spec */
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = placeOf(path.resolve(path.dirname(file), spec), srcRoot);
      if (!to) return;
      const report = (why) => context.report({ node, messageId: 'floor', data: { from: path.relative(context.cwd, file), to: spec, why } });
      if (!ALLOWED[from.floor].includes(to.floor)) return report(`${from.floor} is below ${to.floor}`);
      if (from.floor === 'features' && to.floor === 'features' && to.feature !== from.feature) {
        if (to.inner !== 'index.ts') return report(`another feature is used only through its index.ts`);
        const a = FEATURE_ORDER.indexOf(from.feature ?? ''), b = FEATURE_ORDER.indexOf(to.feature ?? '');
        if (a < 0 || b < 0) return report('every feature must be ranked in FEATURE_ORDER (scripts/eslint/floors.js)');
        if (b > a) return report(`features import one way: ${to.feature} comes after ${from.feature}`);
      }
      if (from.floor !== 'features' && to.floor === 'features' && to.inner !== 'index.ts') return report('a feature is used only through its index.ts');
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};

export default { rules: { floors: floorsRule } };
