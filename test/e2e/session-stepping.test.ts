import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch, screenshot } from './harness';
import { openFixture, selectedIndex, selectRequest, waitForView, type Opened } from './session-helpers';

// compaction-lifecycle.jsonl: 13 requests, five compaction attempts (cmp_1 … cmp_5), two diagnostics.
const LIFECYCLE = 'fixtures/palimpsest/compaction-lifecycle.jsonl';

let browser: Browser;
let o: Opened;

beforeAll(async () => {
  browser = await launch();
  o = await openFixture(browser, LIFECYCLE);
});
afterAll(async () => {
  await o?.close();
  await browser?.close();
});

const at = () => selectedIndex(o.page);
const markers = async (kind: 'compaction' | 'diagnostic') =>
  (await o.page.locator(`.sv-ticks-${kind} .sv-tick`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-index'))))).sort(
    (a, b) => a - b,
  );

describe('stepping through requests, compactions and diagnostics', () => {
  it('steps requests with j / k, arrows, Home and End', async () => {
    await selectRequest(o.page, 0);
    await o.page.keyboard.press('j');
    await expect.poll(at).toBe('#1');
    await o.page.keyboard.press('ArrowRight');
    await expect.poll(at).toBe('#2');
    await o.page.keyboard.press('k');
    await expect.poll(at).toBe('#1');
    await o.page.keyboard.press('End');
    const last = await o.page.locator('.session-view .row.request').count();
    await expect.poll(at).toBe(`#${last - 1}`);
    await o.page.keyboard.press('Home');
    await expect.poll(at).toBe('#0');
  });

  it('jumps to the next and previous compaction with c / Shift+C, landing on the timeline marks', async () => {
    const marks = [...new Set(await markers('compaction'))];
    expect(marks.length).toBeGreaterThan(1);
    await selectRequest(o.page, 0);
    for (const m of marks) {
      await o.page.keyboard.press('c');
      await expect.poll(at).toBe(`#${m}`);
    }
    await o.page.keyboard.press('Shift+C');
    await expect.poll(at).toBe(`#${marks[marks.length - 2]}`);
    await waitForView(o.page);
    await screenshot(o.page, 'session-stepping-compaction');
  });

  it('jumps to diagnostics with d / Shift+D', async () => {
    const marks = [...new Set(await markers('diagnostic'))];
    expect(marks.length).toBeGreaterThan(0);
    await selectRequest(o.page, 0);
    await o.page.keyboard.press('d');
    await expect.poll(at).toBe(`#${marks[0]}`);
    await o.page.keyboard.press('End');
    await o.page.keyboard.press('Shift+D');
    await expect.poll(at).toBe(`#${marks[marks.length - 1]}`);
  });

  it('moves the selection with the slider', async () => {
    const slider = o.page.getByRole('slider', { name: 'Selected request' });
    await slider.fill('5');
    await expect.poll(at).toBe('#5');
    await waitForView(o.page, 5);
  });

  it('logged no console error', () => {
    expect(o.errors).toEqual([]);
  });
});
