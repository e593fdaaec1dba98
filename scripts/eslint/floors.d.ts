import type { ESLint, Rule } from 'eslint';
export const FEATURE_ORDER: string[];
export const floorsRule: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
