import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { makeFakeHome, type FakeHome } from './fake-home';
import { launch, screenshot, serveSessions, type Served } from './harness';

/**
 * The library in Chromium against the web host, started on a folder (`palimpsest serve
 * fixtures/palimpsest`) with discovery looking in a fake home that holds one Claude Code and one
 * Codex session.
 */

const FOLDER = 'fixtures/palimpsest';
const IN_FOLDER = 10; // *.jsonl files in fixtures/palimpsest

let browser: Browser;
let served: Served;
let home: FakeHome;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  browser = await launch();
  home = makeFakeHome();
  served = await serveSessions([FOLDER], home.machine);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(served.host.url);
  await page.locator('.lib-row').first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
  home?.remove();
});

const rows = () => page.locator('.session-list [role=option]');
const chip = (name: string) => page.locator('.chips button', { hasText: name });

describe('the library', () => {
  it("starts on the library and lists the folder's sessions and this machine's, per harness", async () => {
    await expect.poll(() => page.locator('#tab-library').getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => rows().count()).toBe(IN_FOLDER + 2);
    expect(await chip('palimpsest').innerText()).toMatch(/palimpsest\s+10/);
    expect(await chip('claude-code').innerText()).toMatch(/claude-code\s+1/);
    expect(await chip('codex').innerText()).toMatch(/codex\s+1/);
    const basic = rows().filter({ hasText: 'Fix the last-page bug in paginate()' });
    await expect.poll(() => basic.count()).toBe(1);
    const text = await basic.innerText();
    expect(text).toContain('10 requests');
    expect(text).toContain('1 compaction');
    expect(text).not.toContain('1 compactions');
    // A scan does not run the diagnostics: unknown, never made up.
    expect(text).toContain('diagnostics unknown');
    await page.locator('.roots summary').click();
    expect(await page.locator('.roots').innerText()).toContain(`${home.path}/.codex/sessions`);
    await screenshot(page, 'library');
  });

  it('filters by text and by harness', async () => {
    const filter = page.getByLabel('Filter sessions');
    await filter.fill('paginate');
    await expect.poll(() => rows().count()).toBeLessThan(IN_FOLDER + 2);
    expect(await rows().first().innerText()).toMatch(/paginate/i);
    await filter.fill('no session is called this');
    await expect.poll(() => rows().count()).toBe(0);
    expect(await page.locator('.session-list').innerText()).toContain('No session matches the filter.');
    await filter.fill('');
    await chip('codex').click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().innerText()).toContain('codex');
    await chip('all').click();
    await expect.poll(() => rows().count()).toBe(IN_FOLDER + 2);
    await screenshot(page, 'library-filtered');
  });

  it('opens a session from the list with the keyboard: / filter, ↓ into the list, Enter', async () => {
    await page.locator('body').click({ position: { x: 5, y: 880 } });
    await page.keyboard.press('/');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Filter sessions');
    await page.keyboard.type('basic.jsonl');
    await expect.poll(() => rows().count()).toBe(1);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('listbox');
    await page.keyboard.press('Enter');
    const tab = page.locator('.app-bar [role=tab][aria-selected=true]');
    await expect.poll(() => tab.innerText()).toContain('basic.jsonl');
    await expect.poll(() => page.locator('.row.request').count()).toBe(10);
    await screenshot(page, 'library-opened-basic');
  });

  it('remembers the session in Recent, with counts and no content', async () => {
    await page.keyboard.press('Alt+L');
    await expect.poll(() => page.locator('#tab-library').getAttribute('aria-selected')).toBe('true');
    const recent = page.locator('.recent-list li');
    await expect.poll(() => recent.count()).toBe(1);
    expect(await recent.first().innerText()).toMatch(/basic\.jsonl[\s\S]*10 requests · 1 compaction ·/);
    const stored = await page.evaluate(() => localStorage.getItem('palimpsest.recent.v1'));
    const entries = JSON.parse(stored ?? '[]') as Record<string, unknown>[];
    expect(entries).toHaveLength(1);
    expect(Object.keys(entries[0] ?? {}).sort()).toEqual(['compactions', 'format', 'openedAt', 'path', 'requests', 'worst']);
    expect(stored).not.toContain('paginate');
    expect(stored).not.toContain('last-page');
  });

  it('opens a typed path under the folder, and refuses one outside what the host allows', async () => {
    const box = page.getByLabel('Path');
    await box.fill(`${FOLDER}/lifecycle.jsonl`);
    await box.press('Enter');
    await expect.poll(() => page.locator('.app-bar [role=tab][aria-selected=true]').innerText()).toContain('lifecycle.jsonl');
    await expect.poll(() => page.locator('.app-bar [role=tab]').count()).toBe(3);
    await page.keyboard.press('Alt+L');
    await page.getByLabel('Path').fill('/etc/passwd');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    const alert = page.locator('.library [role=alert]');
    await expect.poll(() => alert.innerText()).toContain('FORBIDDEN_PATH');
    expect(await alert.innerText()).toContain('/etc/passwd is not a session this host may open');
    await screenshot(page, 'library-forbidden');
  });

  it('explains that a browser can show no file dialog and cannot use dropped files', async () => {
    await page.getByRole('button', { name: 'Open files…' }).click();
    await expect.poll(() => page.locator('.library [role=alert]').last().innerText()).toContain('type the path');
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['{}'], 'dropped.jsonl', { type: 'application/json' }));
      window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, cancelable: true }));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, cancelable: true }));
    });
    const status = page.locator('.library [role=status]', { hasText: 'Dropping files' });
    await expect.poll(() => status.innerText()).toContain('works in the desktop app only');
    // Still the app: the drop did not navigate to the file.
    expect(new URL(page.url()).origin).toBe(served.host.origin);
    await screenshot(page, 'library-drop-explained');
  });

  it('goes to the path box with Ctrl+O from an open session', async () => {
    await page.locator('.app-bar [role=tab]', { hasText: 'lifecycle.jsonl' }).click();
    await page.locator('.row.request').first().waitFor();
    await page.keyboard.press('Control+o');
    await expect.poll(() => page.locator('#tab-library').getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('library-path');
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
