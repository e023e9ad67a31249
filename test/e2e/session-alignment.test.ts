import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch, screenshot } from './harness';
import { openFixture, selectRequest, type Opened } from './session-helpers';

// basic.jsonl: request #8 sees checkpoint k1 (compaction cmp_01, summarising 12 raw items) first,
// then u2 (seq 34), a7 (seq 36) and t6 (seq 38).
const BASIC = 'fixtures/palimpsest/basic.jsonl';

let browser: Browser;
let o: Opened;

beforeAll(async () => {
  browser = await launch();
  o = await openFixture(browser, BASIC);
});
afterAll(async () => {
  await o?.close();
  await browser?.close();
});

const view = () => o.page.locator('.session-view .pane.view');
const raw = () => o.page.locator('.session-view .pane.raw');
const alignedRawSeqs = async () =>
  (
    await raw()
      .locator('.row.event.aligned')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))))
  ).sort((a, b) => a - b);

describe('raw history and model view, aligned', () => {
  it('picking a view item highlights its provenance in the raw history and opens its whole text', async () => {
    await selectRequest(o.page, 8);
    const k1 = view().locator('.item[data-item=k1]');
    await k1.click();
    // The alignment bar lists every event the checkpoint came from; the raw pane highlights them.
    const listed = (await o.page.locator('.sv-align .sv-seq').allTextContents()).map(Number);
    expect(listed.length).toBeGreaterThan(12);
    await expect.poll(alignedRawSeqs).toEqual(expect.arrayContaining([listed[0] as number]));
    const shown = await alignedRawSeqs();
    expect(shown.every((s) => listed.includes(s))).toBe(true);
    // The checkpoint was collapsed (long); its whole text is read from the file on demand.
    await expect.poll(() => k1.locator('pre.text.full').textContent()).toContain('compacted-summary');
    await screenshot(o.page, 'session-alignment-view-to-raw');
  });

  it('picking a summarised raw event highlights and scrolls to the checkpoint that stands in its place', async () => {
    await selectRequest(o.page, 8);
    const summarised = raw()
      .locator('.row.event', { has: o.page.locator('.chip.fate-summarised') })
      .first();
    const seq = Number(await summarised.getAttribute('data-seq'));
    await summarised.click();
    await expect.poll(() => view().locator('.item.aligned').getAttribute('data-item')).toBe('k1');
    await expect.poll(() => o.page.locator('.sv-align').textContent()).toContain(`Event ${seq}`);
    await expect
      .poll(() => o.page.locator('.sv-align').textContent())
      .toMatch(/summarised by k1 \(compaction cmp_01\) — shown at view position 0/);
    await screenshot(o.page, 'session-alignment-raw-to-view');
  });

  it('picking a verbatim raw event highlights the same item in the view; a later one says the model could not see it', async () => {
    await selectRequest(o.page, 8);
    await raw().locator('.row.event[data-seq="34"]').click();
    await expect.poll(() => view().locator('.item.aligned').getAttribute('data-item')).toBe('u2');
    await raw().locator('.row.event[data-seq="40"]').click();
    await expect.poll(() => o.page.locator('.sv-align').textContent()).toContain('written after this request');
    expect(await view().locator('.item.aligned').count()).toBe(0);
  });

  it('Escape clears the pick', async () => {
    await raw().locator('.row.event[data-seq="34"]').click();
    await expect.poll(() => raw().locator('.row.event.picked').count()).toBe(1);
    await o.page.keyboard.press('Escape');
    await expect.poll(() => raw().locator('.row.event.picked').count()).toBe(0);
  });

  it('logged no console error', () => {
    expect(o.errors).toEqual([]);
  });
});
