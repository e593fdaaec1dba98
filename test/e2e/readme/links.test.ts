/**
 * The documentation's links lead somewhere: in README.md, docs/, BENCHMARKS.md and the READMEs
 * under src/ and packages/, every relative link names a file or folder of the repository, and
 * every #anchor (in the same page or another) is the slug of one of that page's headings, by
 * GitHub's rules (lower case, punctuation dropped, spaces to hyphens, -1, -2… for repeats). The
 * client's README is published in its package, so its links must stay inside the package.
 * External (http) links are not fetched: the tests run offline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lexer, type Token, type Tokens } from 'marked';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The Markdown pages checked, relative to the root. */
function pages(): string[] {
  const under = (dir: string, name: RegExp) =>
    readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && name.test(e.name) && !e.parentPath.includes('node_modules'))
      .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
  return ['README.md', 'BENCHMARKS.md', ...under('docs', /\.md$/), ...under('src', /^README\.md$/), ...under('packages', /^README\.md$/)];
}

/** Every token, nested ones (list items, table cells, emphasis) included. */
function* walk(tokens: unknown): Generator<Token> {
  if (Array.isArray(tokens)) for (const t of tokens) yield* walk(t);
  else if (tokens && typeof tokens === 'object') {
    const t = tokens as Record<string, unknown>;
    if (typeof t.type === 'string') yield t as unknown as Token;
    for (const key of ['tokens', 'items', 'header', 'rows']) if (key in t) yield* walk(t[key]);
  }
}

/** A heading's text as GitHub shows it: inline code and links reduced to their text. */
const plain = (tokens: Token[]): string => tokens.map((t) => ('tokens' in t && t.tokens ? plain(t.tokens) : 'text' in t ? String(t.text) : '')).join('');

/** GitHub's anchors of a page's headings. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const t of walk(Lexer.lex(markdown))) {
    if (t.type !== 'heading') continue;
    const base = plain((t as Tokens.Heading).tokens)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

test('GitHub anchors: punctuation dropped, spaces to hyphens, repeats numbered', () => {
  assert.deepEqual([...anchorsOf('# API guide\n## Rate limits\n### `mindprint ask`: streaming\n## Rate limits\n')], ['api-guide', 'rate-limits', 'mindprint-ask-streaming', 'rate-limits-1']);
});

test('every relative link and anchor of the documentation leads somewhere', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages()) {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    const published = page.startsWith('packages/') ? path.dirname(page) : null;
    for (const t of walk(Lexer.lex(text))) {
      if (t.type !== 'link' && t.type !== 'image') continue;
      const href = (t as Tokens.Link).href;
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/')) continue; // external, or a path of the running server
      checked++;
      const [file, anchor] = href.split('#') as [string, string | undefined];
      const target = file ? path.normalize(path.join(path.dirname(page), decodeURI(file))) : page;
      if (!existsSync(path.join(ROOT, target))) {
        broken.push(`${page}: ${href} (no ${target})`);
        continue;
      }
      if (published && (target.startsWith('..') || !target.startsWith(published + path.sep))) {
        broken.push(`${page}: ${href} leaves the published package`);
        continue;
      }
      if (anchor !== undefined && !statSync(path.join(ROOT, target)).isDirectory() && !anchorsOf(readFileSync(path.join(ROOT, target), 'utf8')).has(anchor)) {
        broken.push(`${page}: ${href} (no heading of ${target} has the anchor #${anchor})`);
      }
    }
  }
  assert.ok(checked > 30, `links were found (${checked})`);
  assert.deepEqual(broken, []);
});
