import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { launch, screenshot } from './harness';
import { openFixture, selectRequest, type Opened } from './session-helpers';

// A session whose items are many lines long, so that an opened item is several times the height
// of a closed one, and long enough that the model view and the raw history both scroll.
const ITEMS = 60;
const LINES = 14;

function sessionLines(): string {
  const lines: object[] = [
    { kind: 'session', format: 'palimpsest', version: 1, id: 'virtual-rows', harness: 'test', title: 'Rows of many heights' },
    {
      kind: 'header',
      system: [{ type: 'text', text: 'You are a careful coding agent.' }],
      route: { provider: 'anthropic', model: 'claude-test', window: 200000, maxOutput: 8192 },
    },
  ];
  for (let i = 0; i < ITEMS; i++) {
    const text = Array.from({ length: LINES }, (_, l) => `item ${i}, line ${l}: some words so that the line has a width`).join('\n');
    lines.push({ kind: 'item', item: { id: `i${i}`, role: i % 2 === 0 ? 'user' : 'assistant', blocks: [{ type: 'text', text }] } });
  }
  lines.push({ kind: 'request', id: 'q0' });
  // A second request, whose view holds every item of the first and two more.
  lines.push({ kind: 'item', item: { id: 'a60', role: 'assistant', blocks: [{ type: 'text', text: 'done' }] } });
  lines.push({ kind: 'item', item: { id: 'u61', role: 'user', blocks: [{ type: 'text', text: 'thanks' }] } });
  lines.push({ kind: 'request', id: 'q1' });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

interface Box {
  readonly label: string;
  readonly top: number;
  readonly bottom: number;
}

/** The boxes of the rows a virtual list has drawn, top to bottom. */
async function rowBoxes(page: Page, selector: string): Promise<Box[]> {
  const boxes = await page.locator(selector).evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { label: e.getAttribute('data-index') ?? e.getAttribute('data-seq') ?? '?', top: r.top, bottom: r.bottom };
    }),
  );
  return boxes.sort((a, b) => a.top - b.top);
}

/** Pairs of neighbouring rows where the lower one starts above the end of the upper one. */
function overlaps(boxes: readonly Box[]): string[] {
  const found: string[] = [];
  for (let i = 1; i < boxes.length; i++) {
    const [a, b] = [boxes[i - 1] as Box, boxes[i] as Box];
    // Half a pixel: row edges fall on fractional pixels when the page is scaled.
    if (b.top < a.bottom - 0.5) found.push(`row ${a.label} [${a.top}, ${a.bottom}] and row ${b.label} [${b.top}, ${b.bottom}]`);
  }
  return found;
}

const frames = (page: Page, n: number) =>
  page.evaluate(
    (count) =>
      new Promise<void>((done) => {
        const step = (left: number) => (left === 0 ? done() : requestAnimationFrame(() => step(left - 1)));
        step(count);
      }),
    n,
  );

let dir: string;
let browser: Browser;
let o: Opened;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-rows-'));
  const path = join(dir, 'rows.jsonl');
  writeFileSync(path, sessionLines());
  browser = await launch();
  o = await openFixture(browser, path);
});
afterAll(async () => {
  await o?.close();
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('virtual lists keep their rows apart when heights change', () => {
  it('opening several model-view items within a second leaves no two rows overlapping', async () => {
    const view = '.session-view .pane.view';
    await o.page.locator(`${view} .item[data-position="4"]`).waitFor();
    await screenshot(o.page, 'session-virtual-rows-closed');
    // Clicked by the page itself, 150 ms apart: as fast as a user, and without the pointer
    // checks that would refuse to click a row another row is drawn over.
    await o.page.evaluate(async (sel) => {
      for (const position of [0, 1, 2, 3, 4]) {
        document.querySelector<HTMLElement>(`${sel} .item[data-position="${position}"]`)?.click();
        await new Promise((r) => setTimeout(r, 150));
      }
    }, view);
    await expect.poll(() => o.page.locator(`${view} .item[aria-expanded=true] pre.text`).count()).toBe(5);
    await frames(o.page, 2);
    await screenshot(o.page, 'session-virtual-rows-opened');

    const rows = await rowBoxes(o.page, `${view} .vrow`);
    expect(rows.length).toBeGreaterThan(5);
    expect(overlaps(rows)).toEqual([]);
    // Each opened row is as tall as its item, so the list has no gaps either.
    const tall = rows.filter((r) => r.bottom - r.top > 100);
    expect(tall.length).toBe(5);

    // Closing two of them again, just as fast.
    await o.page.evaluate(async (sel) => {
      for (const position of [1, 3]) {
        document.querySelector<HTMLElement>(`${sel} .item[data-position="${position}"]`)?.click();
        await new Promise((r) => setTimeout(r, 150));
      }
    }, view);
    await expect.poll(() => o.page.locator(`${view} .item[aria-expanded=true]`).count()).toBe(3);
    await frames(o.page, 2);
    expect(overlaps(await rowBoxes(o.page, `${view} .vrow`))).toEqual([]);
  });

  it('the raw history rows do not overlap, at the top and after scrolling', async () => {
    const raw = '.session-view .pane.raw';
    await o.page.locator(`${raw} .row.event`).first().waitFor();
    let rows = await rowBoxes(o.page, `${raw} .row.event`);
    expect(rows.length).toBeGreaterThan(5);
    expect(overlaps(rows)).toEqual([]);

    await o.page.locator(`${raw} .scroll`).evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    await frames(o.page, 2);
    rows = await rowBoxes(o.page, `${raw} .row.event`);
    expect(rows.length).toBeGreaterThan(5);
    expect(overlaps(rows)).toEqual([]);
  });

  it('keeps the model view where the user scrolled it when another request is selected', async () => {
    const view = o.page.locator('.session-view .pane.view .scroll');
    const raw = o.page.locator('.session-view .pane.raw .scroll');
    await selectRequest(o.page, 0);
    // Picking a raw event deep in the session scrolls the model view to the item it became.
    await raw.evaluate((e) => (e.scrollTop = 40 * 24));
    await o.page.locator('.session-view .pane.raw [data-seq="52"]').click();
    await expect.poll(() => view.evaluate((e) => e.scrollTop)).toBeGreaterThan(1000);
    // The user scrolls the view back to its top, then selects the next request: the pick is
    // cleared, and its scroll must not be done again in the new view.
    await view.evaluate((e) => (e.scrollTop = 0));
    await selectRequest(o.page, 1);
    await frames(o.page, 3);
    expect(await view.evaluate((e) => e.scrollTop)).toBe(0);
  });

  it('logged no console error', () => {
    expect(o.errors).toEqual([]);
  });
});
