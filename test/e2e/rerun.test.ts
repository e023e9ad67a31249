import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolateHost, launch, screenshot, type IsolatedHost } from './harness';
import { openFixture, type Opened } from './session-helpers';
import { job, runAndWait } from './rerun-helpers';

/*
 * Re-run & compare in Chromium against the web host, on the bundled sample with no API key: the
 * baselines and the mock provider run, progress streams, the comparison shows the original beside
 * the runs with the summary diff and verbatim recall, and a slow run can be cancelled.
 */

const SAMPLE = 'fixtures/palimpsest/basic.jsonl';

let browser: Browser;
let host: IsolatedHost;
let dataDir: string;

beforeAll(async () => {
  // The host runs in this process: results and settings go to a temporary data folder, and no key is set.
  host = isolateHost('palimpsest-e2e-rerun-', { noKeys: true });
  dataDir = host.dataDir;
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  host?.restore();
});

async function openRerun(page: Page): Promise<void> {
  await page.getByRole('tab', { name: 'Re-run & compare' }).click();
  await page.getByRole('form', { name: 'Re-run settings' }).waitFor();
}

describe('re-run & compare', () => {
  let o: Opened;

  beforeAll(async () => {
    o = await openFixture(browser, SAMPLE);
  });
  afterAll(async () => {
    await o?.close();
  });

  it('starts from what runs without a key: extractive, the mock in the chain, a demo window, and says why', async () => {
    await openRerun(o.page);
    const form = o.page.getByRole('form', { name: 'Re-run settings' });
    expect(await form.getByRole('note').first().textContent()).toMatch(/No API key is set.*OPENAI_API_KEY/);
    expect(await o.page.getByLabel('Compaction', { exact: true }).inputValue()).toBe('cmp_01');
    expect(await o.page.getByLabel('Strategy').inputValue()).toBe('extractive');
    expect(await o.page.getByLabel('Window (tokens)').inputValue()).toBe('2000');
    expect(await form.textContent()).toMatch(/Window 2,000 is a demo setting: this source is about 1,224 tokens.*nothing to truncate/);
    // The mock is labelled as what it is wherever it can be chosen.
    await o.page.getByLabel('Strategy').selectOption('one-shot');
    const chain = o.page.getByRole('list', { name: 'Model chain' });
    expect(await chain.textContent()).toMatch(/mock:summarizer.*mock — scripted, not a model.*no key needed/);
    expect(await o.page.getByLabel('Provider').locator('option').first().textContent()).toBe('mock — scripted, not a model');
    expect(await o.page.getByLabel('Provider keys').textContent()).toMatch(/anthropic not set/);
  });

  it('runs extractive and one-shot@mock on cmp_01 with window 2000, with progress and results', async () => {
    const page = o.page;
    await page.getByLabel('Strategy').selectOption('extractive');
    await runAndWait(page, 'done');
    expect(await job(page).locator('.rr-job-head').textContent()).toMatch(/extractive.*on compaction cmp_01/);
    expect(await job(page).locator('.rr-run-line').textContent()).toMatch(/#1 committed · 892 → \d[\d,]* tokens · 0 requests/);

    await page.getByLabel('Strategy').selectOption('one-shot');
    await page.getByLabel('Repeat').fill('2');
    await runAndWait(page, 'done');
    const head = await job(page).locator('.rr-job-head').textContent();
    expect(head).toMatch(/one-shot @ mock:summarizer.*on compaction cmp_01/);
    // The last progress the job reported: the summarize stage of the second repeat, and both runs.
    expect(await job(page).locator('.rr-stage').textContent()).toBe('summarize 1/1 · repeat 2/2 · 2/2 runs');
    expect(await job(page).locator('.rr-run-line').allTextContents()).toEqual([
      expect.stringMatching(/^#1 committed · 892 → [\d,]+ tokens · 1 request\s*mock/),
      expect.stringMatching(/^#2 committed · 892 → [\d,]+ tokens · 1 request\s*mock/),
    ]);
    await page.getByLabel('Repeat').fill('1');
    // The runs list: three runs of cmp_01, the mock ones flagged, all chosen for the comparison.
    const runs = page.getByRole('region', { name: 'Runs', exact: true }).locator('tbody tr');
    await expect.poll(() => runs.count()).toBe(3);
    expect(await runs.locator('.rr-mock').count()).toBe(2);
    expect(await runs.locator('input[type=checkbox]:checked').count()).toBe(3);
    await screenshot(page, 'rerun-panel-sample');
    expect(readdirSync(join(dataDir, 'runs'))).toEqual([expect.stringMatching(/^basic\.jsonl\.[0-9a-f]{12}\.runs\.jsonl$/)]);
  });

  it('compares the original with the runs: side by side, the summary diff, recall with the lost anchors', async () => {
    const page = o.page;
    // Leave out the second mock repeat: the original, extractive and one mock run.
    await page.getByRole('region', { name: 'Runs', exact: true }).locator('tbody tr').first().locator('input[type=checkbox]').uncheck();
    await page.getByRole('button', { name: 'Compare 2 with the original' }).click();
    const cmp = page.getByRole('region', { name: 'Comparison', exact: true });
    await cmp.locator('table').waitFor();
    const heads = await cmp.locator('thead th[data-subject]').allTextContents();
    expect(heads).toEqual(['original (one-shot summary)', 'extractive #1', 'one-shot @ mock:summarizer [mock] #1']);
    const row = (name: string) => cmp.locator('tbody tr', { has: page.getByRole('rowheader', { name, exact: true }) }).locator('td');
    expect(await row('outcome').allTextContents()).toEqual(['committed', 'committed', 'committed']);
    expect(await row('tokens before → after').allTextContents()).toEqual([
      '1,224 → 855',
      expect.stringMatching(/^892 → [\d,]+$/),
      expect.stringMatching(/^892 → [\d,]+$/),
    ]);
    expect(await row('requests').allTextContents()).toEqual(['1', '0', '1']);
    const recall = await row('verbatim recall').allTextContents();
    expect(recall).toEqual([expect.stringMatching(/^\d+%$/), expect.stringMatching(/^\d+%$/), '100%']);
    // The original keeps 1 of the 2 identifiers said in prose: the lost one is listed on demand. (The
    // anchors are those of compaction forensics now, which read code names from what was said, not
    // from the code a tool call wrote: it counted 17 identifiers before.)
    const idents = row('· identifiers').first();
    expect(await idents.textContent()).toMatch(/^1\/2 \(50%\) · 1 lost/);
    await idents.locator('summary').click();
    expect(await idents.locator('li code').allTextContents()).toContain('items.slice');
    expect(await row('§ Objective').allTextContents()).toEqual(['✓', '✗', '✓']);
    // One diff per run against the original, added and removed lines marked.
    const diffs = cmp.locator('.cmp-diff-block');
    expect(await diffs.count()).toBe(2);
    expect(await diffs.nth(1).locator('figcaption').textContent()).toMatch(
      /one-shot @ mock:summarizer \[mock\] #1 against the original \+\d+ −\d+ lines/,
    );
    expect(await diffs.nth(1).locator('.cmp-line.added').count()).toBeGreaterThan(0);
    expect(await diffs.nth(1).locator('.cmp-line.removed').first().textContent()).toMatch(/^− /);
    expect(
      await diffs
        .nth(1)
        .locator('.cmp-line.added')
        .first()
        .evaluate((e) => getComputedStyle(e).backgroundColor),
    ).not.toBe('rgba(0, 0, 0, 0)');
    await cmp.scrollIntoViewIfNeeded();
    await screenshot(page, 'rerun-compare-sample');
    expect(o.errors).toEqual([]);
  });

  it("keeps the web host's token: re-run methods without it are refused", async () => {
    const { origin } = o.served.host;
    const res = await fetch(`${origin}/api/startRerun`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ sessionId: 'x', target: { compaction: 'cmp_01' }, strategy: 'truncate' }),
    });
    expect(res.status).toBe(401);
    // fetch cannot set Host (a forbidden header): a raw request can, as a DNS-rebinding page would.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: o.served.host.port,
          path: '/api/providerKeys',
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${o.served.host.token}`, Host: 'evil.example' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  it('cancels a slow run (the mock with a 30 s latency): the job ends cancelled, the run is recorded as such', async () => {
    const page = o.page;
    await page.getByLabel('Strategy').selectOption('one-shot');
    await page.getByLabel('Mock latency (ms)').fill('30000');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect.poll(() => job(page).locator('.rr-stage').textContent()).toMatch(/^summarize 0\/1 · repeat 1\/1/);
    expect(await job(page).locator('progress').count()).toBe(1);
    await screenshot(page, 'rerun-slow-running');
    const t0 = Date.now();
    await job(page).getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => job(page).locator('.rr-state').textContent()).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await job(page).locator('.rr-run-line').textContent()).toMatch(/#1 cancelled/);
    expect(await job(page).getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    await screenshot(page, 'rerun-cancelled');
    expect(o.errors).toEqual([]);
  });

  it('keeps the chain in settings: a model pinned with parameters and prices is saved, and the next panel starts from it', async () => {
    const page = o.page;
    await openRerun(page);
    await page.getByLabel('Strategy').selectOption('one-shot');
    const add = page.getByRole('group', { name: 'Add a model' });
    await add.getByLabel('Provider').selectOption('openai');
    await add.getByLabel('Model', { exact: true }).fill('llama3.1:8b');
    await add.getByLabel('Base URL').fill('http://127.0.0.1:11434/v1');
    await add.getByText('Parameters and prices').click();
    await add.getByLabel('Temperature').fill('0.2');
    await add.getByLabel('Reasoning').selectOption('low');
    await add.getByLabel('Prices').fill('0.5,1.5');
    await add.getByRole('button', { name: 'Add model' }).click();
    const status = page.getByRole('status', { name: 'Chain settings' });
    await expect
      .poll(() => status.textContent())
      .toMatch(/^Saved in settings \(.*settings\.json\): re-runs of every session start from this chain\.$/);
    const chain = page.getByRole('list', { name: 'Model chain' });
    expect(await chain.textContent()).toMatch(
      /openai:llama3\.1:8b @ http:\/\/127\.0\.0\.1:11434\/v1.*temperature 0\.2.*reasoning low.*\$0\.5 in \/ \$1\.5 out per M/,
    );
    const file = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { summarizationChain: unknown[] };
    expect(file.summarizationChain).toEqual([
      { provider: 'mock', model: 'summarizer', params: {}, window: null },
      {
        provider: 'openai',
        model: 'llama3.1:8b',
        baseUrl: 'http://127.0.0.1:11434/v1',
        params: { temperature: 0.2, reasoning: 'low' },
        window: null,
        prices: { input: 0.5, output: 1.5 },
      },
    ]);
    // Another window on the same host: its panel starts from the saved chain.
    const other = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      await other.goto(o.served.host.url);
      await other.locator('.session-view .row.request').first().waitFor();
      await openRerun(other);
      await other.getByLabel('Strategy').selectOption('one-shot');
      const again = other.getByRole('list', { name: 'Model chain' });
      await expect.poll(() => again.textContent({ timeout: 1000 })).toMatch(/mock:summarizer.*openai:llama3\.1:8b.*temperature 0\.2/);
      await screenshot(other, 'rerun-chain-from-settings');
      expect(await other.getByRole('status', { name: 'Chain settings' }).textContent()).toMatch(/^From settings \(/);
    } finally {
      await other.close();
    }
    expect(o.errors).toEqual([]);
  });
});
