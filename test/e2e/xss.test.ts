import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
// @ts-expect-error: a plain .mjs script without type declarations
import { PAYLOADS } from '../../scripts/gen-xss-fixture.mjs';
import { launch, screenshot, serveSessions, type Served } from './harness';

/** Written by scripts/gen-xss-fixture.mjs; one request per payload, then a last one. */
const XSS = 'fixtures/xss/xss.jsonl';
const payloads = PAYLOADS as readonly string[];

let browser: Browser;
let served: Served;
let page: Page;
const dialogs: string[] = [];
const consoleErrors: string[] = [];
const foreign: string[] = [];

beforeAll(async () => {
  browser = await launch();
  served = await serveSessions([XSS]);
  // Tall enough that the virtualised panes render every item and event of this small session.
  page = await browser.newPage({ viewport: { width: 1600, height: 3000 } });
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(`${served.host.origin}/`)) foreign.push(u);
  });
  page.on('framenavigated', (f) => {
    const u = f.url();
    if (!u.startsWith(`${served.host.origin}/`)) foreign.push(`navigated: ${u}`);
  });
  await page.goto(served.host.url);
  await page.locator('.row.request').first().waitFor();
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

const selectedIndex = async () => page.locator('[role=option][aria-selected=true] .idx').textContent();

async function selectRequest(i: number): Promise<void> {
  await page
    .locator('.row.request', { hasText: `#${i}` })
    .first()
    .click();
  await expect.poll(selectedIndex).toBe(`#${i}`);
  await expect.poll(() => page.locator('.pane.view h2').textContent()).toContain(`at request #${i}`);
  await expect.poll(() => page.locator('.pane.view').getAttribute('aria-busy')).toBe('false');
}

/** The visible text of the page (what a reader sees), payloads included verbatim. */
const visibleText = () => page.locator('body').innerText();

describe('XSS corpus in the web host', () => {
  it('lists every request of the corpus', async () => {
    await expect.poll(() => page.locator('.row.request').count()).toBe(payloads.length + 1);
  });

  it('shows every payload as text in user messages, reasoning, tool calls and tool results', async () => {
    for (let i = 0; i < payloads.length; i++) {
      const p = payloads[i]!;
      const n = i + 1;
      // Request #i is sent after user message n; request #(i+1) also sees a n, its call and its result.
      await selectRequest(i);
      await expect.poll(visibleText).toContain(`user ${n}: ${p}`);
      await selectRequest(i + 1);
      const view = page.locator('.pane.view');
      for (const expected of [
        `user ${n}: ${p}`,
        `reasoning ${n}: ${p}`,
        `assistant ${n}: ${p}`,
        `tool result ${n}: ${p}`,
        JSON.stringify({ path: p }).slice(0, 40),
      ]) {
        await expect.poll(() => view.innerText(), { message: expected }).toContain(expected);
      }
      // The expanded (full-text) rendition of the assistant item shows it as text too.
      await view
        .locator('.item', { hasText: `assistant ${n}:` })
        .first()
        .click();
      await expect.poll(() => view.locator('pre.text.full').first().innerText()).toContain(`assistant ${n}: ${p}`);
      await view
        .locator('.item', { hasText: `assistant ${n}:` })
        .first()
        .click();
    }
    await screenshot(page, 'xss-last-request');
  });

  it('shows the system prompt as text', async () => {
    await selectRequest(0);
    const system = await page.locator('.view-head .system').innerText();
    expect(system).toContain(`System prompt with payloads: ${payloads[0]} ${payloads[1]}`);
  });

  it('shows payloads as text in the raw history summaries', async () => {
    const raw = await page.locator('.pane.raw .scroll').innerText();
    expect(raw).toContain('<script>alert(1)</script>');
    expect(raw).toContain('<img src=x onerror=alert(1)>');
    await screenshot(page, 'xss-request-0');
  });

  it('created no element from the payloads', async () => {
    const found = await page.evaluate(() => ({
      iframes: document.querySelectorAll('iframe, object, embed').length,
      imgs: document.querySelectorAll('img').length,
      svgs: [...document.querySelectorAll('svg')].filter((s) => s.closest('.pane')).length,
      handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
      jsLinks: document.querySelectorAll('a[href^="javascript:" i]').length,
      scripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    }));
    expect(found).toEqual({ iframes: 0, imgs: 0, svgs: 0, handlers: 0, jsLinks: 0, scripts: 0 });
  });

  it('opened no dialog, logged no console error and sent no request off the host', async () => {
    // Give any late onerror/onload handler the chance to fire.
    await page.waitForTimeout(500);
    expect(dialogs).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(foreign).toEqual([]);
  });
});
