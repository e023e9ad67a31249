import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch, screenshot } from './harness';
import { openFixture, selectRequest, type Opened } from './session-helpers';

// A real Claude Code session (2.1.39): 139 requests, one auto compaction after request #60
// (preTokens 170,251). Claude Code logs no window: the claude-code preset's 200,000 and its trigger
// at window − 33,000 = 167,000 are drawn (docs/tokens.md).
const CLAUDE = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';

let browser: Browser;
let o: Opened;

beforeAll(async () => {
  browser = await launch();
  o = await openFixture(browser, CLAUDE);
});
afterAll(async () => {
  await o?.close();
  await browser?.close();
});

const meter = () => o.page.locator('.sv-meter');
const lineTitle = (kind: string) => meter().locator(`[data-line=${kind}]`).getAttribute('title');

describe('token meter and context chart', () => {
  it('stacks the view by category against the window, with the policy lines and the reported figure', async () => {
    await selectRequest(o.page, 60);
    await o.page.getByRole('tab', { name: 'Tokens' }).click();
    await expect.poll(() => lineTitle('window')).toBe('window: 200,000');
    expect(await lineTitle('trigger')).toBe('trigger: 167,000');
    expect(await lineTitle('outputReserve')).toBe('output reserve: 180,000');
    expect(await lineTitle('headroom')).toBe('headroom: 167,000');
    expect(await lineTitle('reported')).toBe('reported: 164,831');
    expect(await meter().locator('.sv-seg').count()).toBeGreaterThan(3);
    // Counting finishes in the background: the estimate stops being partly from characters.
    await expect.poll(() => o.page.locator('.sv-counting').count(), { timeout: 30_000 }).toBe(0);
    const segments = await meter()
      .locator('.sv-seg')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-category')));
    expect(segments).toContain('tool_result');
    expect(await meter().textContent()).toMatch(/reported 164,831/);
    await screenshot(o.page, 'session-tokens-meter');
  });

  it('charts context size over the session with the compaction as a drop and the trigger as a line', async () => {
    const chart = o.page.locator('.sv-chart');
    await chart.waitFor();
    expect(await chart.locator('[data-line=trigger]').getAttribute('d')).toMatch(/^M/);
    expect(await chart.locator('[data-compaction]').count()).toBe(1);
    expect(await chart.locator('svg').getAttribute('aria-label')).toMatch(
      /^Context size over \d+ requests, 1 compactions, 4 prompt-cache breaks$/,
    );
    // The provider's usage shows four cache breaks (two pauses past the lifetime, the compaction, one unexplained).
    expect(await chart.locator('[data-break]').count()).toBe(4);
    const breaks = o.page.locator('.sv-breaks');
    expect(await breaks.locator('summary').textContent()).toMatch(
      /^4 prompt-cache breaks: [0-9,]+ tokens not read from the cache \(cost unknown/,
    );
    // Clicking the chart selects the request under the pointer.
    const box = await chart.locator('svg').boundingBox();
    if (!box) throw new Error('the chart has no box');
    await o.page.mouse.click(box.x + box.width * 0.02, box.y + box.height / 2);
    await expect.poll(() => o.page.locator('.session-view [role=option][aria-selected=true] .idx').textContent()).toMatch(/^#[0-3]$/);
  });

  it('applies an edited policy, and reports a bad one', async () => {
    await selectRequest(o.page, 60);
    await o.page.getByRole('textbox', { name: 'Policy' }).fill('claude-code,trigger=150k');
    await o.page.getByRole('button', { name: 'apply' }).click();
    await expect.poll(() => lineTitle('trigger')).toBe('trigger: 150,000');
    await o.page.getByRole('textbox', { name: 'Policy' }).fill('nope');
    await o.page.getByRole('button', { name: 'apply' }).click();
    await expect.poll(() => o.page.locator('.sv-policy [role=alert]').textContent()).toMatch(/no policy "nope"/);
  });

  it('logged no console error', () => {
    expect(o.errors).toEqual([]);
  });
});
