/**
 * Where tests, benchmarks and training scripts find data: the repository's own small fixtures
 * (test/fixtures, always there) and the larger real data of ../shared/data (beside a clone on
 * the project's machines and in CI, absent in a plain clone).
 *
 * A test that genuinely needs the larger data (benchmarks, model training checks, real-data
 * checks over many files) passes `skipUnlessSharedData` as its options, so a plain clone skips
 * it with one line saying why; everything else reads fixtures.
 */
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * ../shared/data beside the repository (absolute, with a trailing slash), or where
 * MINDPRINT_SHARED_DATA says (a git worktree elsewhere, another layout).
 */
export const SHARED_DATA = process.env.MINDPRINT_SHARED_DATA
  ? resolve(process.env.MINDPRINT_SHARED_DATA) + sep
  : fileURLToPath(new URL('../../../shared/data/', import.meta.url));
export const SHARED_DATA_URL = pathToFileURL(SHARED_DATA);
export const hasSharedData = existsSync(SHARED_DATA);

/** A path under ../shared/data. */
export const sharedDataPath = (rel: string): string => join(SHARED_DATA, rel);

/** test/fixtures (absolute, with a trailing slash): small public-domain excerpts and generated files, see SOURCES.md there. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const FIXTURES_URL = new URL('../fixtures/', import.meta.url);
/** A path under test/fixtures. */
export const fixturePath = (rel: string): string => join(FIXTURES, rel);

export const SHARED_DATA_REASON = `needs the real data of ../shared/data, not found at ${SHARED_DATA} (set MINDPRINT_SHARED_DATA to its folder)`;

/** Options for `test(name, skipUnlessSharedData, fn)` / `describe(...)`: skipped, with the reason, when ../shared/data is absent. */
export const skipUnlessSharedData: { skip: string | false } = { skip: hasSharedData ? false : SHARED_DATA_REASON };

/** For benchmark and training scripts: without ../shared/data, say so in one line and exit. */
export function requireSharedData(script: string): void {
  if (hasSharedData) return;
  process.stderr.write(`${script}: ${SHARED_DATA_REASON}; nothing to run.\n`);
  process.exit(1);
}
