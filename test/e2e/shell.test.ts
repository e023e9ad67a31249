import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright';
import { launch, screenshot, serveSessions, type Served } from './harness';

/** The app shell in Chromium: tabs of open sessions, keys, the shortcuts overlay, themes. */

const BASIC = 'fixtures/palimpsest/basic.jsonl';
const BRANCHES = 'fixtures/palimpsest/branches.jsonl';

let browser: Browser;
let served: Served;
const consoleErrors: string[] = [];

beforeAll(async () => {
  browser = await launch();
  served = await serveSessions([BASIC, BRANCHES]);
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(served.host.url);
  return page;
}

const activeTab = (page: Page) => page.locator('.app-bar [role=tab][aria-selected=true]').innerText();
const tabs = (page: Page) => page.locator('.app-bar [role=tab]').allInnerTexts();

describe('tabs of open sessions', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await newPage(context);
  });
  afterAll(() => context.close());

  it('opens the first session given, and keeps the others in the library', async () => {
    await expect.poll(() => activeTab(page)).toContain('basic.jsonl');
    await page.locator('.row.request').first().waitFor();
    await page.locator('#tab-library').click();
    const started = page.locator('section[aria-labelledby=started-title]');
    expect(await started.innerText()).toContain('branches.jsonl');
    expect(await started.innerText()).not.toContain('basic.jsonl');
    await started.getByRole('button', { name: 'branches.jsonl' }).click();
    await expect.poll(() => activeTab(page)).toContain('branches.jsonl');
    expect((await tabs(page)).map((t) => t.split(/\s/)[0])).toEqual(['Library', 'basic.jsonl', 'branches.jsonl']);
    await screenshot(page, 'shell-two-tabs');
  });

  it('moves between tabs with [ and ], the library first', async () => {
    await page.locator('.app-bar h1').click();
    await page.keyboard.press('[');
    await expect.poll(() => activeTab(page)).toContain('basic.jsonl');
    await page.keyboard.press('[');
    await expect.poll(() => activeTab(page)).toBe('Library');
    await page.keyboard.press('[');
    await expect.poll(() => activeTab(page)).toContain('branches.jsonl');
    await page.keyboard.press(']');
    await expect.poll(() => activeTab(page)).toBe('Library');
    await page.keyboard.press(']');
    await expect.poll(() => activeTab(page)).toContain('basic.jsonl');
  });

  it('closes the open session with Alt+W, and with its × button', async () => {
    await page.keyboard.press('Alt+W');
    await expect.poll(() => tabs(page)).toHaveLength(2);
    await expect.poll(() => activeTab(page)).toContain('branches.jsonl');
    await page.getByRole('button', { name: 'Close branches.jsonl' }).click();
    await expect.poll(() => tabs(page)).toEqual(['Library']);
    expect(await activeTab(page)).toBe('Library');
    // Both are offered again, and reopen.
    const started = page.locator('section[aria-labelledby=started-title]');
    await expect.poll(() => started.innerText()).toContain('basic.jsonl');
  });

  it('shows the keyboard shortcuts with ? and closes them with Escape', async () => {
    await page.locator('.app-bar h1').click();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    const text = await dialog.innerText();
    for (const expected of ['Ctrl+F', 'search in the open session', 'Alt+W', 'close the open session', '[', ']', 'next compaction'])
      expect(text).toContain(expected);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Close (Esc)');
    await screenshot(page, 'shell-shortcuts');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    // The ? button opens it too.
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await dialog.waitFor();
    await page.keyboard.press('?');
    await expect.poll(() => dialog.count()).toBe(0);
  });
});

describe('themes', () => {
  it('follow the system by default, switch with the toggle or Alt+T, and stay switched after a reload', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, colorScheme: 'dark' });
    const page = await newPage(context);
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    const background = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await expect.poll(theme).toBe('dark');
    const dark = await background();
    await page.locator('.row.request').first().waitFor();
    await screenshot(page, 'theme-dark');

    await page.getByRole('button', { name: 'Switch to the light theme' }).click();
    await expect.poll(theme).toBe('light');
    expect(await background()).not.toBe(dark);
    expect(await page.evaluate(() => localStorage.getItem('palimpsest.theme'))).toBe('light');
    await page.reload();
    await expect.poll(theme).toBe('light');
    await page.locator('.row.request').first().waitFor();
    await screenshot(page, 'theme-light');

    await page.locator('.app-bar h1').click();
    await page.keyboard.press('Alt+T');
    await expect.poll(theme).toBe('dark');
    await page.getByRole('button', { name: 'use system' }).click();
    expect(await page.evaluate(() => localStorage.getItem('palimpsest.theme'))).toBeNull();
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(theme).toBe('light');
    await context.close();
  });
});

describe('the console', () => {
  it('logged no error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
