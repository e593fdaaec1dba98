/**
 * State changes in one place (docs/architecture.md): a lifecycle column is written only by its
 * feature's state.ts, one conditional UPDATE per transition that emits its event. This scans
 * src/ for writes of those columns — drizzle's `.update(table).set({ column: … })` and raw SQL's
 * `update table … set column = …` — and fails on any outside the owning file.
 *
 * A scan of text, not of types: it reads `.set()` object literals and SQL SET clauses, so a
 * `.set()` of an owned table it cannot read (a variable, a spread) counts as a write of every
 * column; keep SET clauses literal. The synthetic sources below show that each kind of write is
 * caught, so the scan of src/ passing means something.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Each lifecycle column (SQL name), its table, and the one file that may write it. */
const OWNED: { table: string; columns: string[]; owner: string }[] = [
  { table: 'snapshots', columns: ['status'], owner: 'src/features/snapshots/state.ts' },
  { table: 'snapshots', columns: ['embedder', 'embedded_at', 'embedding_error', 'embedding_queued'], owner: 'src/features/memory/state.ts' },
  { table: 'messages', columns: ['status'], owner: 'src/features/simulations/state.ts' },
  { table: 'artifacts', columns: ['status'], owner: 'src/features/snapshots/state.ts' },
];

/** `*`: a `.set()` the scan cannot read, taken to write anything. */
interface Write {
  table: string;
  column: string;
  line: number;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const lineOf = (source: string, index: number) => source.slice(0, index).split('\n').length;

/** Block comments and whole-line comments out (prose may say "update snapshots set status"); lines kept for reporting. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/^\s*\/\/.*$/gm, '');
}

/** The text of the balanced `{ … }` starting at `open`, or null. */
function objectAt(source: string, open: number): string | null {
  if (source[open] !== '{') return null;
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') {
      depth--;
      if (depth === 0) return source.slice(open + 1, i);
    }
  }
  return null;
}

/** Top-level keys of an object literal's text (`key:` and shorthand `key`); `*` for a spread. */
function keysOf(body: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let start = 0;
  const entries: string[] = [];
  for (let i = 0; i <= body.length; i++) {
    const c = body[i];
    if (c === '{' || c === '(' || c === '[') depth++;
    else if (c === '}' || c === ')' || c === ']') depth--;
    else if ((c === ',' && depth === 0) || i === body.length) {
      entries.push(body.slice(start, i));
      start = i + 1;
    }
  }
  for (const e of entries.map((x) => x.trim()).filter(Boolean)) {
    if (e.startsWith('...')) keys.push('*');
    else {
      const m = /^['"]?(\w+)['"]?\s*(?::|$)/.exec(e);
      if (m) keys.push(snake(m[1]!));
    }
  }
  return keys;
}

/** Every write of a column of a table that `source` makes, by drizzle or raw SQL. */
export function stateWrites(source: string): Write[] {
  const text = withoutComments(source);
  const writes: Write[] = [];
  // drizzle: .update(table).set(…)
  for (const m of text.matchAll(/\.update\(\s*(\w+)\s*\)\s*\.set\(\s*/g)) {
    const table = m[1]!;
    const at = m.index! + m[0].length;
    const body = objectAt(text, at);
    const columns = body === null ? ['*'] : keysOf(body);
    for (const column of columns) writes.push({ table, column, line: lineOf(text, m.index!) });
  }
  // SQL: update table [alias] set a = …, b = … (up to where/from/returning or the template's end)
  for (const m of text.matchAll(/\bupdate\s+(?:\$\{\s*)?"?(\w+)"?\s*\}?\s+(?:(?:as\s+)?\w+\s+)?set\s+([\s\S]*?)(?=\bwhere\b|\bfrom\b|\breturning\b|`|$)/gi)) {
    const table = m[1]!.toLowerCase();
    for (const c of `,${m[2]}`.matchAll(/,\s*(?:\w+\.)?"?(\w+)"?\s*=(?![=>])/g)) writes.push({ table, column: c[1]!.toLowerCase(), line: lineOf(text, m.index!) });
  }
  return writes;
}

/** The writes in `source` (a file at `file`, relative to the repository) that only another file may make. */
function violations(file: string, source: string): string[] {
  return stateWrites(source).flatMap((w) =>
    OWNED.filter((o) => o.table === w.table && o.owner !== file && (w.column === '*' || o.columns.includes(w.column))).map(
      (o) => `${file}:${w.line} writes ${w.table}.${w.column === '*' ? `(unreadable .set(), may write ${o.columns.join(', ')})` : w.column}: only ${o.owner} may`,
    ),
  );
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(full)));
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

test('lifecycle columns are written only by their state.ts', async () => {
  const files = await sourceFiles(path.join(ROOT, 'src'));
  assert.ok(files.length > 100, 'the scan reads src/');
  const found: string[] = [];
  const ownersWriting = new Set<string>();
  for (const full of files) {
    const file = path.relative(ROOT, full).split(path.sep).join('/');
    const source = await readFile(full, 'utf8');
    found.push(...violations(file, source));
    for (const w of stateWrites(source)) for (const o of OWNED) if (o.owner === file && o.table === w.table && o.columns.includes(w.column)) ownersWriting.add(`${o.table}.${w.column}`);
  }
  assert.deepEqual(found, [], 'move these writes into a transition of the owning state.ts');
  // Each owner's transitions are seen by the scan: if they were not, it would see nothing anywhere.
  for (const o of OWNED) for (const c of o.columns) assert.ok(ownersWriting.has(`${o.table}.${c}`), `${o.owner} writes ${o.table}.${c}`);
});

test('the scan catches each kind of write outside the owner, and only writes', () => {
  const planted: [string, string][] = [
    ['drizzle', `await db.update(snapshots).set({ status: 'failed', error: reason }).where(eq(snapshots.id, id));`],
    ['drizzle, multi-line', `await tx\n  .update(messages)\n  .set({\n    updatedAt: new Date(),\n    status,\n  })\n  .where(x);`],
    ['drizzle, spread', `await db.update(artifacts).set({ ...changes, size: 1 }).where(x);`],
    ['drizzle, variable', `await db.update(snapshots).set(changes).where(x);`],
    ['drizzle, camelCase index column', `await db.update(snapshots).set({ embeddingQueued: null }).where(x);`],
    ['sql', 'await db.execute(sql`update snapshots set status = \'failed\', error = ${r} where id = ${id}`);'],
    ['sql, alias and later column', 'sql`update snapshots s set error = null, status = ${st} from snapshots prior where s.id = prior.id`'],
    ['sql, interpolated table', 'sql`update ${messages} set status = ${"failed"} where id = ${id}`'],
    ['sql, upper case', 'sql`UPDATE artifacts SET status = \'uploaded\' WHERE id = ${id}`'],
    ['sql, index column', 'sql`update snapshots set embedded_at = now() where id = ${id}`'],
  ];
  for (const [kind, source] of planted) assert.notDeepEqual(violations('src/features/elsewhere/service.ts', source), [], kind);

  const allowed: [string, string][] = [
    ['another column', `await db.update(snapshots).set({ linked, updatedAt: new Date() }).where(eq(snapshots.id, id));`],
    ['status in the condition only', 'sql`update messages set content = ${c}::jsonb, updated_at = now() where id = ${id} and status = \'streaming\'`'],
    ['an insert', `await tx.insert(messages).values({ status: 'pending', seq: 1 });`],
    ['another table', `await tx.update(simulations).set({ updatedAt: new Date(), model }).where(x);`],
    ['prose', `/** the sweeper does update snapshots set status = 'failed' for lost jobs */\n// update messages set status = 'failed'`],
  ];
  for (const [kind, source] of allowed) assert.deepEqual(violations('src/features/elsewhere/service.ts', source), [], kind);
  // The owner may.
  assert.deepEqual(violations('src/features/snapshots/state.ts', planted[0]![1]), []);
});
