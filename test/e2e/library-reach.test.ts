import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright';
import { launch, serveSessions, type Served } from './harness';

/**
 * The library reads a session ahead while the user reaches for it (src/renderer/library/reach.ts,
 * prepareSession): the pointer resting on its row, or the keyboard's pick resting there, and the
 * open the click or Enter asks for takes that read. In Chromium against the web host started on a
 * folder, whose registry the test watches.
 */

const FOLDER = 'fixtures/palimpsest';
const BASIC = `${FOLDER}/basic.jsonl`;
const ROW = 48;

let browser: Browser;
let served: Served;
let page: Page;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  vi.restoreAllMocks();
  await page?.close();
  await served?.close();
});

/** A host of its own for each case, so that what one read is not another's. */
async function library(): Promise<void> {
  served = await serveSessions([FOLDER]);
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(served.host.url);
  await page.locator('.lib-row').first().waitFor();
}

/** The paths the host was asked to open, in order. */
function watchOpens(): () => string[] {
  const open = vi.spyOn(served.registry, 'open');
  return () => open.mock.calls.map((c) => c[0].replace(/^.*fixtures/, 'fixtures'));
}

const row = (name: string) => page.locator('.session-list [role=option]', { hasText: name });

describe('reading a session ahead while the user reaches for it', () => {
  it('reads the row the pointer rests on, and the click takes that read', async () => {
    await library();
    const opened = watchOpens();
    const basic = row('basic.jsonl');
    await basic.hover();
    await expect.poll(opened, { timeout: 5000 }).toEqual([BASIC]);
    await expect.poll(() => served.registry.size, { timeout: 5000 }).toBe(1);
    await basic.click();
    await expect.poll(() => page.locator('.row.request').count()).toBe(10);
    // Taken, not read again.
    expect(opened()).toEqual([BASIC]);
    expect(served.registry.size).toBe(1);
  });

  it('reads nothing for rows the pointer only passes over', async () => {
    await library();
    const opened = watchOpens();
    const first = await page.locator('.lib-row').first().boundingBox();
    if (!first) throw new Error('no row on screen');
    const x = first.x + first.width / 2;
    await page.mouse.move(x, first.y + ROW / 2);
    // Down five rows in one sweep, a few milliseconds a row, and off the list.
    await page.mouse.move(x, first.y + 5.5 * ROW, { steps: 10 });
    await page.mouse.move(5, 5);
    await new Promise((r) => setTimeout(r, 400));
    expect(opened()).toEqual([]);
  });

  it("reads the keyboard's pick once it rests, and Enter takes that read", async () => {
    await library();
    const opened = watchOpens();
    await page.getByLabel('Filter sessions').fill('basic.jsonl');
    await expect.poll(() => page.locator('.lib-row').count()).toBe(1);
    await page.keyboard.press('ArrowDown');
    await expect.poll(opened, { timeout: 5000 }).toEqual([BASIC]);
    await expect.poll(() => served.registry.size, { timeout: 5000 }).toBe(1);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.row.request').count()).toBe(10);
    expect(opened()).toEqual([BASIC]);
    expect(served.registry.size).toBe(1);
  });
});
