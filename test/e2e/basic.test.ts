import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { launch, screenshot, serveSessions, type Served } from './harness';

const BASIC = 'fixtures/palimpsest/basic.jsonl';
const REQUESTS = 10; // req_01 … req_10 in basic.jsonl

let browser: Browser;
let served: Served;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  browser = await launch();
  served = await serveSessions([BASIC]);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(served.host.url);
  await page.locator('.row.request').first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

const selectedIndex = async () => page.locator('[role=option][aria-selected=true] .idx').textContent();

describe('basic.jsonl in the web host', () => {
  it('lists every request', async () => {
    await expect.poll(() => page.locator('.row.request').count()).toBe(REQUESTS);
    const idx = await page.locator('.row.request .idx').allTextContents();
    expect(idx).toEqual(Array.from({ length: REQUESTS }, (_, i) => `#${i}`));
    await expect.poll(() => page.locator('.requests h2').textContent()).toContain(`(${REQUESTS})`);
    await screenshot(page, 'basic-opened');
  });

  it('moves the selection with j / k and ArrowDown / ArrowUp', async () => {
    await page.locator('.row.request', { hasText: '#0' }).first().click();
    await expect.poll(selectedIndex).toBe('#0');
    await page.keyboard.press('j');
    await expect.poll(selectedIndex).toBe('#1');
    await page.keyboard.press('j');
    await expect.poll(selectedIndex).toBe('#2');
    await page.keyboard.press('k');
    await expect.poll(selectedIndex).toBe('#1');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(selectedIndex).toBe('#3');
    await page.keyboard.press('ArrowUp');
    await expect.poll(selectedIndex).toBe('#2');
    await expect.poll(() => page.locator('.pane.view h2').textContent()).toContain('at request #2');
  });

  it('shows the checkpoint cmp_01 in the model view of request #8 and summarised fates in the raw history', async () => {
    await page.locator('.row.request', { hasText: '#8' }).first().click();
    await expect.poll(selectedIndex).toBe('#8');
    const view = page.locator('.pane.view');
    await expect.poll(() => view.locator('h2').textContent()).toContain('at request #8');
    await expect.poll(() => view.getAttribute('aria-busy')).toBe('false');
    await expect
      .poll(() => view.locator('.tag.derivation').allTextContents())
      .toContainEqual(expect.stringMatching(/^checkpoint cmp_01 \(summary, covers 12\)$/));
    await expect.poll(() => view.locator('.item .text', { hasText: 'compacted-summary' }).count()).toBeGreaterThan(0);

    const raw = page.locator('.pane.raw');
    await expect.poll(() => raw.locator('.row.event .chip.fate-summarised').count()).toBeGreaterThan(0);
    const title = await raw.locator('.row.event .chip.fate-summarised').first().getAttribute('title');
    expect(title).toMatch(/summarised by k1 \(compaction cmp_01\)/);
    await screenshot(page, 'basic-request-8');
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});
