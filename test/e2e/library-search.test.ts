import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { makeFakeHome, type FakeHome } from './fake-home';
import { launch, screenshot, serveSessions, type Served } from './harness';

/**
 * Search over all sessions, from the library, in Chromium against the web host; discovery looks
 * in a fake home with one Claude Code and one Codex session, and the session index is written in
 * that home's cache folder.
 */

let browser: Browser;
let served: Served;
let home: FakeHome;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  browser = await launch();
  home = makeFakeHome();
  served = await serveSessions([], home.machine);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(served.host.url);
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
  home?.remove();
});

const hits = () => page.locator('.everywhere-hits li');

describe('search over all sessions', () => {
  it('finds a phrase in the Claude Code session, marks it, says its fate, and opens the session at the hit', async () => {
    await page.getByRole('searchbox', { name: 'Search all sessions' }).fill('"Request interrupted by user"');
    await page.getByLabel('Search in harness').selectOption('claude-code');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => hits().count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const first = hits().first();
    expect(await first.locator('mark').first().innerText()).toBe('Request interrupted by user');
    expect(await first.innerText()).toMatch(/at the latest request|made after the latest request/);
    const seq = await first.getAttribute('data-seq');
    const request = await first.getAttribute('data-request');
    await screenshot(page, 'library-search');
    await first.locator('button.link').click();
    await expect.poll(() => page.locator('.pane.raw .row.event.picked').getAttribute('data-seq'), { timeout: 30_000 }).toBe(seq);
    if (request !== null)
      await expect.poll(() => page.locator('.pane.requests [role=option][aria-selected=true] .idx').textContent()).toBe(`#${request}`);
    expect(consoleErrors).toEqual([]);
  });

  it('says so when the query is not valid search syntax', async () => {
    await page.locator('#tab-library').click();
    await page.getByRole('searchbox', { name: 'Search all sessions' }).fill('"unbalanced');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('.everywhere [role=alert]').innerText()).toMatch(/not valid full-text search syntax/);
  });
});
