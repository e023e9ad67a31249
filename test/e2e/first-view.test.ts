import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { ensureClaudeBig } from '../../bench/claude';
import { createHostContext, type HostContext } from '../../src/main/host/host-context';
import { startWebHost, type WebHost } from '../../src/main/web/server';
import { RECENT_KEY } from '../../src/renderer/library/recent';
import { launch, RENDERER_DIR } from './harness';
import { selectedIndex, selectRequest } from './session-helpers';

/*
 * A large session's first view (docs/session-view.md, "Opening a large session"), with the cut
 * lowered so that the real Claude Code sample six times over (19 MB, the bench's way of making a
 * large session of real lines) opens from its first 300 kB: the view says it is loading and what it
 * shows, then the whole session takes its place with the request the user selected still selected.
 */

let dir: string;
let browser: Browser;
let context: HostContext;
let host: WebHost;
let page: Page;
const errors: string[] = [];

/** Holds the read of the whole back until released, so that the first view can be looked at for as long as a test needs. */
function gate(): { readonly held: Promise<void>; release(): void } {
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { held, release };
}
let whole = gate();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-first-view-e2e-'));
  const big = ensureClaudeBig(dir, 18_000_000);
  browser = await launch();
  context = await createHostContext({
    paths: [big],
    machine: false,
    firstView: { minBytes: 1_000_000, prefixBytes: 300_000, holdWhole: () => whole.held },
  });
  host = await startWebHost({ port: 0, handlers: context.handlers, rendererDir: RENDERER_DIR });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
}, 120_000);
afterAll(async () => {
  whole.release();
  await page?.close();
  await host?.dispose();
  context?.dispose();
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

const lastRequest = async (): Promise<number> => Number(await page.getByRole('slider', { name: 'Selected request' }).getAttribute('max'));

/** The requests the recent list (localStorage) holds for the session; null: it is not listed. */
const recentRequests = async (): Promise<number | null> =>
  page.evaluate(`(() => {
    const list = JSON.parse(localStorage.getItem('${RECENT_KEY}') ?? '[]');
    return list.length > 0 ? list[0].requests : null;
  })()`);

describe('the first view of a large session', () => {
  it('says it is loading and what it shows, then gives way to the whole session, the selection kept', async () => {
    await page.goto(host.url);
    const banner = page.locator('.session-view .sv-partial');
    await banner.waitFor({ timeout: 60_000 });
    const started = performance.now();
    expect(await banner.textContent()).toMatch(/^Loading — .*Shown so far: the first 0\.3 MB of 19 MB \(\d+ requests\)/);
    // Findings are withheld, not shown as none.
    await page.getByRole('tab', { name: /diagnostics/i }).click();
    expect(await page.locator('.sv-detail').textContent()).toContain('Findings are withheld until the whole session is read');
    const partialLast = await lastRequest();
    expect(partialLast).toBeGreaterThan(2);
    // The recent list does not take a first view's counts for the session's.
    expect(await recentRequests()).toBeNull();
    await selectRequest(page, 2);
    // Still the first view: the swap below carries the selection over.
    expect(await banner.count(), `the whole session came in ${Math.round(performance.now() - started)} ms after the first view`).toBe(1);
    whole.release();

    await banner.waitFor({ state: 'detached', timeout: 120_000 });
    expect(await selectedIndex(page)).toBe('#2');
    expect(await lastRequest()).toBeGreaterThan(partialLast);
    await expect.poll(recentRequests).toBe((await lastRequest()) + 1);
    await expect.poll(() => page.locator('.sv-detail').textContent()).not.toContain('Findings are withheld');
    expect(errors).toEqual([]);
  }, 180_000);

  it('follows: Follow turned on during the first view selects the newest request of the whole when it comes in', async () => {
    whole = gate();
    const other = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    other.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    other.on('pageerror', (e) => errors.push(String(e)));
    try {
      await other.goto(host.url);
      const banner = other.locator('.session-view .sv-partial');
      await banner.waitFor({ timeout: 60_000 });
      const last = async (): Promise<number> => Number(await other.getByRole('slider', { name: 'Selected request' }).getAttribute('max'));
      const partialLast = await last();
      const toggle = other.getByRole('button', { name: 'Follow' });
      await toggle.click();
      await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('true');
      whole.release();
      await banner.waitFor({ state: 'detached', timeout: 120_000 });
      const wholeLast = await last();
      expect(wholeLast).toBeGreaterThan(partialLast);
      await expect.poll(() => selectedIndex(other), { timeout: 15_000 }).toBe(`#${wholeLast}`);
      // Read on, not read again: Follow's note stays empty.
      expect(await other.locator('.follow-note').count()).toBe(0);
    } finally {
      await other.close();
    }
    expect(errors).toEqual([]);
  }, 180_000);
});
