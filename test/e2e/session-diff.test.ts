import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch, screenshot } from './harness';
import { openFixture, selectedIndex, selectRequest, type Opened } from './session-helpers';

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('diffs and diagnostics', () => {
  let o: Opened;
  afterAll(async () => {
    await o?.close();
  });

  it('counts raw items by fate at a view and lists them (basic.jsonl #8)', async () => {
    o = await openFixture(browser, 'fixtures/palimpsest/basic.jsonl');
    await selectRequest(o.page, 8);
    await o.page.getByRole('tab', { name: 'Diff' }).click();
    const counts = o.page.getByRole('group', { name: 'Fate counts' });
    await expect.poll(() => counts.locator('[data-fate=summarised] .sv-count').textContent()).toBe('12');
    expect(await counts.locator('[data-fate=verbatim] .sv-count').textContent()).toBe('4');
    expect(await counts.locator('[data-fate=dropped] .sv-count').textContent()).toBe('1');
    expect(await counts.locator('[data-fate=masked] .sv-count').textContent()).toBe('0');
    await counts.locator('[data-fate=summarised]').click();
    const rows = o.page.locator('.sv-fate-rows li');
    await expect.poll(() => rows.count()).toBe(12);
    expect(await rows.locator('.chip').allTextContents()).toEqual(Array(12).fill('summarised'));
  });

  it('diffs view #5 against view #8: the summarised items removed, the checkpoint and new items added', async () => {
    await o.page.getByRole('textbox', { name: 'Compare with request' }).fill('5');
    const counts = o.page.getByLabel('Diff counts');
    await expect.poll(() => counts.textContent()).toBe('+4 added · −11 removed · ~0 changed · 0 the same');
    const removed = o.page.locator('.sv-change.removed');
    expect(await removed.count()).toBe(11);
    expect(await removed.first().textContent()).toMatch(/u1 user · summarised by k1 \(compaction cmp_01\)/);
    expect(await o.page.locator('.sv-change.added', { hasText: 'k1' }).textContent()).toMatch(/checkpoint/);
    await screenshot(o.page, 'session-diff');
    expect(o.errors).toEqual([]);
  });

  it('jumps from a diagnostic to the event it cites (compaction-lifecycle.jsonl, TRIGGER_MISSED)', async () => {
    const l = await openFixture(browser, 'fixtures/palimpsest/compaction-lifecycle.jsonl');
    try {
      await l.page.getByRole('tab', { name: /^Diagnostics/ }).click();
      const item = l.page.locator('.sv-diag', { hasText: 'TRIGGER_MISSED' });
      await item.getByRole('button', { name: /jump to event 40 \(request #8\)/ }).click();
      await expect.poll(() => selectedIndex(l.page)).toBe('#8');
      await expect.poll(() => l.page.locator('.session-view .pane.raw .row.event.picked').getAttribute('data-seq')).toBe('40');
      expect(await l.page.locator('.sv-align').textContent()).toMatch(/^Event 40/);
      await screenshot(l.page, 'session-diagnostics-jump');
      expect(l.errors).toEqual([]);
    } finally {
      await l.close();
    }
  });
});
