import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch, screenshot } from './harness';
import { openFixture, type Opened } from './session-helpers';

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function openCompactionTab(o: Opened, id: string): Promise<void> {
  await o.page.getByRole('tab', { name: /^Compaction/ }).click();
  await o.page.getByRole('combobox', { name: 'Compaction' }).selectOption(id);
  await o.page.locator('.sv-compaction-head', { hasText: id }).waitFor();
}

describe('compaction detail', () => {
  it('shows what the summarizer received and returned, its finish reason and usage (basic.jsonl, cmp_01)', async () => {
    const o = await openFixture(browser, 'fixtures/palimpsest/basic.jsonl');
    try {
      await openCompactionTab(o, 'cmp_01');
      const panel = o.page.locator('.sv-compaction');
      expect(await panel.locator('.sv-compaction-head').textContent()).toMatch(/committed/);
      // The bracket: start, the summarizer request and its response, the summary, the checkpoint, the end.
      const bracket = await panel.locator('.sv-bracket-ev').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))));
      expect(bracket).toEqual(expect.arrayContaining([28, 29, 31, 32, 33]));
      const call = panel.locator('.sv-table tbody tr', { hasText: 'req_07' });
      expect(await call.textContent()).toMatch(/12 items, instruction/);
      expect(await call.textContent()).toMatch(/end_turn \(stop\)/);
      await panel.locator('summary', { hasText: 'instruction sent by req_07' }).click();
      expect(await panel.locator('details[open] pre').first().textContent()).toMatch(/^Summarise the conversation so far/);
      const returned = await panel.locator('.sv-summary-text').textContent();
      expect(returned).toMatch(/^## Objective\nFix the failing test/);
      expect(await panel.locator('.sv-summary .muted').first().textContent()).toMatch(/usage \d[\d,]* in \/ \d[\d,]* out/);
      await screenshot(o.page, 'session-compaction-basic');
      expect(o.errors).toEqual([]);
    } finally {
      await o.close();
    }
  });

  it('shows what a real Claude Code summary kept and lost, and a lost anchor leads to its item', async () => {
    const o = await openFixture(browser, 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
    try {
      await openCompactionTab(o, 'dd3cc2e6-a191-4331-a0f0-2473e6d7692d');
      const section = o.page.getByRole('region', { name: 'Survival' });
      await section.waitFor();
      // Categories with anchors in the replaced items get a bar; URLs (none there) do not.
      const cats = await section.locator('tr[data-category]').evaluateAll((els) => els.map((e) => e.getAttribute('data-category')));
      expect(cats).toEqual(expect.arrayContaining(['paths', 'commands', 'identifiers', 'errors']));
      expect(cats).not.toContain('urls');
      expect(await section.locator('tr[data-category=commands]').textContent()).toMatch(/5 of 24 .* 19 lost/);
      await section.locator('summary', { hasText: /anchors lost/ }).click();
      const first = section.locator('.sv-survival-lost li').first();
      expect(await first.textContent()).toContain('pane_list_live.ex');
      await first.getByRole('button', { name: 'seq 126' }).click();
      // The raw history picks the line the anchor was said in.
      await expect.poll(() => o.page.locator('.pane.raw .row.event.picked').getAttribute('data-seq')).toBe('126');
      expect(o.errors).toEqual([]);
    } finally {
      await o.close();
    }
  });

  it('draws MapReduce coverage, the reduction tree, rereads, audits and corrections (mapreduce.jsonl, cmp_7)', async () => {
    const o = await openFixture(browser, 'fixtures/palimpsest/mapreduce.jsonl');
    try {
      await openCompactionTab(o, 'cmp_7');
      const cov = o.page.locator('.sv-coverage');
      await cov.waitFor();
      const ordinals = await cov.locator('.sv-cov-bar').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-ordinal'))));
      expect([...new Set(ordinals)].sort((a, b) => a - b)).toEqual([0, 1, 3, 4, 5]);
      expect(await cov.locator('.sv-cov-bar.status-accepted').count()).toBe(ordinals.length);
      expect(await cov.locator('.sv-cov-gap').count()).toBe(0);
      expect(await cov.locator('figcaption').textContent()).toMatch(/0 gaps · 0 overlaps/);
      const tree = o.page.getByRole('list', { name: 'Reduction tree' });
      expect(await tree.locator('.sv-node.final').textContent()).toMatch(/reduce L1#0 \(final\)/);
      expect(await tree.locator('.sv-node.map').count()).toBe(5);
      const mr = o.page.locator('.sv-mapreduce');
      expect(await mr.textContent()).toMatch(/audit fail: map 1: lib.rs re-exports Writer/);
      expect(await mr.textContent()).toMatch(/correction 1 · accepted/);
      expect(await mr.textContent()).toMatch(/reread a2–t2 · served/);
      await screenshot(o.page, 'session-compaction-mapreduce');
      expect(o.errors).toEqual([]);
    } finally {
      await o.close();
    }
  });

  it('marks a coverage gap (fixtures/diagnostics/COVERAGE_GAP/fail.jsonl) and lists the diagnostic', async () => {
    const o = await openFixture(browser, 'fixtures/diagnostics/COVERAGE_GAP/fail.jsonl');
    try {
      await openCompactionTab(o, 'cmp_7');
      const cov = o.page.locator('.sv-coverage');
      await cov.waitFor();
      expect(await cov.locator('.sv-cov-gap').count()).toBe(1);
      expect(await cov.locator('.sv-cov-item.uncovered').allTextContents()).toEqual(['a2', 't2']);
      expect(await o.page.locator('.sv-compaction').textContent()).toMatch(/COVERAGE_GAP/);
      await screenshot(o.page, 'session-compaction-coverage-gap');
    } finally {
      await o.close();
    }
  });

  it('follows a real DeepSeek Harness overflow compaction: next-compaction key, checkpoint in the view, summary in the detail', async () => {
    const o = await openFixture(browser, 'fixtures/dsh/examples/headless-agent/tests/snapshots/compaction-recovery/session.jsonl');
    try {
      await o.page.keyboard.press('c');
      await expect.poll(() => o.page.locator('.session-view [role=option][aria-selected=true] .idx').textContent()).toBe('#3');
      const view = o.page.locator('.session-view .pane.view');
      await expect
        .poll(() => view.locator('.tag.derivation').allTextContents())
        .toContainEqual(expect.stringMatching(/^checkpoint 338e88fa-e78b-4d49-bd38-8f919e85f5e1 /));
      await o.page.getByRole('tab', { name: /^Compaction/ }).click();
      const head = o.page.locator('.sv-compaction-head');
      await expect.poll(() => head.textContent()).toMatch(/committed/);
      expect(await o.page.locator('.sv-compaction').textContent()).toMatch(/trigger overflow/);
      expect((await o.page.locator('.sv-summary-text').first().textContent())?.length ?? 0).toBeGreaterThan(0);
      await screenshot(o.page, 'session-compaction-dsh');
      expect(o.errors).toEqual([]);
    } finally {
      await o.close();
    }
  });
});
