import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch } from './harness';
import { openFixture, selectedIndex, type Opened } from './session-helpers';

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
