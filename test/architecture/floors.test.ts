/**
 * The floors of src/ (docs/architecture.md, scripts/eslint/floors.js) hold: every file of src/
 * passes the rule, and the rule does catch each kind of violation (so this test can fail).
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import floors from '../../scripts/eslint/floors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [
    { files: ['**/*.ts', '**/*.tsx'], languageOptions: { parser: tseslint.parser as never }, linterOptions: { reportUnusedDisableDirectives: 'off' } },
    { files: ['src/**/*.{ts,tsx}'], plugins: { mindprint: floors }, rules: { 'mindprint/floors': 'error' } },
  ],
});

async function problems(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${root}${path}` });
  return result!.messages.map((m) => m.message);
}

describe('floors', () => {
  test('every file of src/ imports only down its floors', async () => {
    const results = await eslint.lintFiles(['src']);
    const found = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(root.length)}:${m.line} ${m.message}`));
    assert.deepEqual(found, []);
    assert.ok(results.length > 100, `linted ${results.length} files`);
  });

  test('a library importing a feature, the database or an engine is refused', async () => {
    assert.match((await problems('src/lib/analysis/x.ts', "import { minds } from '../../features/minds/index.ts';\n"))[0]!, /lib is below features/);
    assert.match((await problems('src/lib/analysis/x.ts', "import { rowsOf } from '../../platform/db/client.ts';\n"))[0]!, /lib is below platform/);
    assert.match((await problems('src/engines/extractive/x.ts', "import type { Deps } from '../../deps.ts';\n"))[0]!, /engines is below deps\.ts/);
    assert.match((await problems('src/platform/http/x.ts', "export { x } from '../../features/tags/index.ts';\n"))[0]!, /platform is below features/);
  });

  test('features meet through index.ts, one way; other floors use a feature through its index.ts', async () => {
    assert.match((await problems('src/features/minds/x.ts', "import { tagRoutes } from '../tags/routes.ts';\n"))[0]!, /only through its index\.ts/);
    assert.match((await problems('src/features/tags/x.ts', "import { Mind } from '../minds/index.ts';\n"))[0]!, /one way: minds comes after tags/);
    assert.match((await problems('src/clients/cli/x.ts', "import { x } from '../../features/minds/service.ts';\n"))[0]!, /only through its index\.ts/);
    assert.deepEqual(await problems('src/features/minds/x.ts', "import { Tag } from '../tags/index.ts';\n"), []);
    assert.deepEqual(await problems('src/boot/x.ts', "import { minds } from '../features/minds/index.ts';\nconst m = await import('../platform/db/client.ts');\n"), []);
  });
});
