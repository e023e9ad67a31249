import type { Page } from 'playwright';
import { expect } from 'vitest';

/* The re-run panel in Chromium: the tests of its entry points and of the panel itself. */

/** The n-th job of the panel (newest first). */
export const job = (page: Page, i = 0) => page.locator('.rr-job').nth(i);

/** Presses Run and waits until the new job reaches `state`. */
export async function runAndWait(page: Page, state: string): Promise<void> {
  const before = await page.locator('.rr-job').count();
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect.poll(() => page.locator('.rr-job').count()).toBe(before + 1);
  await expect.poll(() => job(page).locator('.rr-state').textContent(), { timeout: 30_000 }).toBe(state);
}
