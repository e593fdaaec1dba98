/**
 * What the dashboard's browser tests share: Debian's chromium through playwright-core, the reason
 * to skip without it, axe-core's source, the run's screenshot directory, and a fresh browser
 * (its own profile directory, removed on close).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests skip (only outside CI: there a missing chromium fails them), or false. */
export const noBrowser: string | false = !existsSync(CHROMIUM) && !process.env.CI ? `no chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)` : false;

/** axe-core, evaluated in the page through the DevTools protocol (the page's CSP governs only its own scripts). */
export const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Screenshots of every state, for a person to look at: MINDPRINT_SHOTS_DIR, or a directory of this run (a fixed path would mix two runs' pictures). */
export const SHOTS = process.env.MINDPRINT_SHOTS_DIR || path.join(os.tmpdir(), `mp-web-shots-${process.pid}-${Date.now().toString(36)}`);

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface Browser {
  context: BrowserContext;
  /** The context's first page. */
  page: Page;
  /** The profile directory, removed by close(); a place for the test's own files too. */
  dir: string;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/** A headless chromium with a fresh profile (downloads accepted), at `viewport` (the desktop's by default); SHOTS exists once it resolves. */
export async function openBrowser({ viewport = DESKTOP, timeoutMs = 20_000 }: { viewport?: { width: number; height: number }; timeoutMs?: number } = {}): Promise<Browser> {
  const [dir] = await Promise.all([mkdtemp(path.join(os.tmpdir(), 'mp-chromium-')), mkdir(SHOTS, { recursive: true })]);
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(dir, {
      executablePath: CHROMIUM,
      headless: true,
      acceptDownloads: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
      viewport,
    });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  context.setDefaultTimeout(timeoutMs);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    dir,
    async close() {
      try {
        await context.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
