import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** Another local service, on another port of 127.0.0.1: it records every request it gets, whole. */
async function otherLocalService(): Promise<{ origin: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}\n${req.rawHeaders.join('\n')}`);
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>dev server</title><p>another service</p>');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

describe('web host token', () => {
  it('opens the app from the printed URL, keeps the token out of the address bar, and sets no cookie', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const ok = await page.goto(served.host.url);
    expect(ok?.status()).toBe(200);
    await page.locator('.row.request').first().waitFor();
    expect(page.url()).not.toContain(served.host.token);
    expect(await context.cookies()).toEqual([]);
    // A reload in the same tab still works: the token is in this tab's sessionStorage.
    await page.reload();
    await page.locator('.row.request').first().waitFor();
    await context.close();
  });

  it('without the token the page loads but shows no session, and says how to get in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${served.host.origin}/`);
    await page.getByText('Open the URL `palimpsest serve` printed').first().waitFor();
    expect(await page.locator('.row.request').count()).toBe(0);
    // A fresh tab: going from / to /#… in the same one changes no document.
    const wrong = await context.newPage();
    await wrong.goto(`${served.host.origin}/#token=not-the-token`);
    await wrong.getByText('not authorised').first().waitFor();
    expect(await wrong.locator('.row.request').count()).toBe(0);
    await context.close();
  });

  it('another service on 127.0.0.1 receives nothing of the token, whatever the browser does there', async () => {
    const other = await otherLocalService();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(served.host.url);
      await page.locator('.row.request').first().waitFor();
      // The user goes to their dev server in the same browser: typed, linked, and fetched from it.
      const dev = await context.newPage();
      await dev.goto(`${other.origin}/`);
      await dev.goto(`${other.origin}/api/startRerun?x=1`);
      await dev.evaluate(async (o) => {
        await fetch(`${o}/probe`, { credentials: 'include' });
      }, other.origin);
      expect(other.seen.length).toBeGreaterThanOrEqual(3);
      for (const request of other.seen) {
        expect(request).not.toContain(served.host.token);
        expect(request.toLowerCase()).not.toContain('cookie');
      }
    } finally {
      await context.close();
      await other.close();
    }
  });
});
