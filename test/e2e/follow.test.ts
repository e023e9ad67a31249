import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch } from './harness';
import { openFixture, selectRequest, selectedIndex, waitForView, type Opened } from './session-helpers';

// compaction-lifecycle.jsonl: 13 requests. The copy starts with the lines of the first few; the rest is appended while the tab follows.
const SOURCE = 'fixtures/palimpsest/compaction-lifecycle.jsonl';
const LINES = readFileSync(SOURCE, 'utf8')
  .split('\n')
  .filter((l) => l !== '');
const ALL = 13;

let browser: Browser;
let o: Opened;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-follow-e2e-'));
  file = join(dir, 'session.jsonl');
  writeFileSync(file, LINES.slice(0, Math.floor(LINES.length / 3)).join('\n') + '\n');
  browser = await launch();
  o = await openFixture(browser, file);
});
afterAll(async () => {
  await o?.close();
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = () => o.page.locator('.session-view .row.request').count();

describe('Follow', () => {
  it('shows requests appended to the session while it follows, the newest selected', async () => {
    const before = await rows();
    expect(before).toBeLessThan(ALL);
    const toggle = o.page.getByRole('button', { name: 'Follow' });
    await toggle.focus();
    await o.page.keyboard.press('Enter');
    await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('true');
    appendFileSync(file, LINES.slice(Math.floor(LINES.length / 3)).join('\n') + '\n');
    await expect.poll(rows, { timeout: 15_000 }).toBe(ALL);
    await expect.poll(() => selectedIndex(o.page), { timeout: 15_000 }).toBe(`#${ALL - 1}`);
    expect(o.errors).toEqual([]);
  });
});

// A Codex session (it reads on in the host): 3 requests in its first 40 lines, 6 in all 63.
const CODEX = 'fixtures/codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl';
const codexLines = (): string[] =>
  readFileSync(CODEX, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

describe('a session shown while its harness writes it', () => {
  it('shows new requests with Follow off, the selection kept', async () => {
    const lines = codexLines();
    const copy = join(dir, 'rollout.jsonl');
    writeFileSync(copy, lines.slice(0, 40).join('\n') + '\n');
    const c = await openFixture(browser, copy);
    try {
      const count = () => c.page.locator('.session-view .row.request').count();
      expect(await count()).toBe(3);
      await selectRequest(c.page, 1);
      expect(await c.page.getByRole('button', { name: 'Follow' }).getAttribute('aria-pressed')).toBe('false');
      // Two writes: the first loads the session again in the host, the second is read on.
      appendFileSync(copy, lines.slice(40, 52).join('\n') + '\n');
      await expect.poll(count, { timeout: 15_000 }).toBeGreaterThan(3);
      appendFileSync(copy, lines.slice(52).join('\n') + '\n');
      await expect.poll(count, { timeout: 15_000 }).toBe(6);
      expect(await selectedIndex(c.page)).toBe('#1');
      await waitForView(c.page, 1);
      expect(c.errors).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('leaves the raw history where the user scrolled it when lines are appended', async () => {
    const lines = codexLines();
    const copy = join(dir, 'rollout-scrolled.jsonl');
    writeFileSync(copy, lines.slice(0, 40).join('\n') + '\n');
    const c = await openFixture(browser, copy);
    try {
      const count = () => c.page.locator('.session-view .row.request').count();
      await selectRequest(c.page, 0);
      const raw = c.page.locator('.session-view .pane.raw .scroll');
      // Away from the selected request's event, where the selection had brought it.
      await raw.evaluate((el) => (el.scrollTop = el.scrollHeight));
      const scrolled = await raw.evaluate((el) => el.scrollTop);
      expect(scrolled).toBeGreaterThan(0);
      const heading = c.page.locator('.session-view .pane.raw h2');
      const listed = await heading.textContent();
      appendFileSync(copy, lines.slice(40, 52).join('\n') + '\n');
      await expect.poll(count, { timeout: 15_000 }).toBeGreaterThan(3);
      appendFileSync(copy, lines.slice(52).join('\n') + '\n');
      await expect.poll(count, { timeout: 15_000 }).toBe(6);
      // The events the appends added are listed (the pane's count) before the scroll is read.
      await expect.poll(() => heading.textContent(), { timeout: 15_000 }).not.toBe(listed);
      expect(await raw.evaluate((el) => el.scrollTop)).toBeGreaterThanOrEqual(scrolled);
      expect(c.errors).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

// Palimpsest's own format: 10 requests, then rewritten in place as the 13 of the lifecycle session.
const BASIC = 'fixtures/palimpsest/basic.jsonl';

describe('a session rewritten in place while shown', () => {
  it("shows the rewritten session's view in the diff panel, the request kept", async () => {
    const lines = readFileSync(BASIC, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const copy = join(dir, 'rewritten.jsonl');
    writeFileSync(copy, lines.slice(0, 20).join('\n') + '\n');
    const c = await openFixture(browser, copy);
    try {
      const count = () => c.page.locator('.session-view .row.request').count();
      // The first change loads the session again in the host, keeping it open: a rewrite after it is told apart.
      appendFileSync(copy, lines.slice(20).join('\n') + '\n');
      await expect.poll(count, { timeout: 15_000 }).toBe(10);
      await selectRequest(c.page, 8);
      await c.page.getByRole('tab', { name: 'Diff' }).click();
      const counts = c.page.getByRole('group', { name: 'Fate counts' });
      await expect.poll(() => counts.locator('[data-fate=summarised] .sv-count').textContent()).toBe('12');
      const before = await counts.textContent();

      // What the rewritten file shows at request 8, opened afresh.
      const fresh = await openFixture(browser, SOURCE);
      let after: string | null;
      try {
        await selectRequest(fresh.page, 8);
        await fresh.page.getByRole('tab', { name: 'Diff' }).click();
        const freshCounts = fresh.page.getByRole('group', { name: 'Fate counts' });
        await freshCounts.waitFor();
        after = await freshCounts.textContent();
      } finally {
        await fresh.close();
      }
      expect(after).not.toBe(before);

      writeFileSync(copy, LINES.join('\n') + '\n');
      await expect.poll(count, { timeout: 15_000 }).toBe(ALL);
      expect(await selectedIndex(c.page)).toBe('#8');
      await expect.poll(() => counts.textContent(), { timeout: 15_000 }).toBe(after);
      expect(c.errors).toEqual([]);
    } finally {
      await c.close();
    }
  });
});
