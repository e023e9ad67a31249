import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { launch, serveSessions, type Served } from './harness';

let browser: Browser;
let served: Served;

beforeAll(async () => {
  browser = await launch();
  served = await serveSessions(['fixtures/palimpsest/basic.jsonl']);
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

describe('web host token', () => {
  it('answers 401 to a page without the token, and serves the app with it', async () => {
    const page = await browser.newPage();
    const denied = await page.goto(`${served.host.origin}/`);
    expect(denied?.status()).toBe(401);
    expect(await page.locator('body').innerText()).toContain('Unauthorized');
    const wrong = await page.goto(`${served.host.origin}/?token=not-the-token`);
    expect(wrong?.status()).toBe(401);

    const ok = await page.goto(served.host.url);
    expect(ok?.status()).toBe(200);
    expect(new URL(page.url()).searchParams.has('token')).toBe(false); // redirected, cookie set
    await page.locator('.row.request').first().waitFor();
    await page.close();
  });
});
