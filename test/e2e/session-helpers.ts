import type { Browser, Page } from 'playwright';
import { expect } from 'vitest';
import { serveSessions, type Served } from './harness';

/** One fixture opened in the web host and a page on it, with the console errors it logged. */
export interface Opened {
  readonly served: Served;
  readonly page: Page;
  readonly errors: string[];
  close(): Promise<void>;
}

export async function openFixture(browser: Browser, path: string, viewport = { width: 1400, height: 1000 }): Promise<Opened> {
  const served = await serveSessions([path]);
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(served.host.url);
  await page.locator('.session-view .row.request').first().waitFor();
  // Not expect.poll: this runs in beforeAll, outside any test.
  await page.locator('.session-view .pane.view[aria-busy=false]').waitFor();
  return {
    served,
    page,
    errors,
    async close() {
      await page.close();
      await served.close();
    },
  };
}

/** The index shown as selected in the request list ("#3"). */
export const selectedIndex = (page: Page): Promise<string | null> =>
  page.locator('.session-view [role=option][aria-selected=true] .idx').textContent();

/** Wait until the model view shows the selected request, loaded. */
export async function waitForView(page: Page, index?: number): Promise<void> {
  const view = page.locator('.session-view .pane.view');
  if (index !== undefined) await expect.poll(() => view.locator('h2').textContent()).toContain(`at request #${index}`);
  await expect.poll(() => view.getAttribute('aria-busy')).toBe('false');
}

/** Select a request: by clicking its row when it is on screen, else with the timeline's slider (the list is virtualised). */
export async function selectRequest(page: Page, index: number): Promise<void> {
  const row = page.locator(`.session-view #request-${index}`);
  if ((await row.count()) > 0) await row.click();
  else await page.getByRole('slider', { name: 'Selected request' }).fill(String(index));
  await expect.poll(() => selectedIndex(page)).toBe(`#${index}`);
  await waitForView(page, index);
}
