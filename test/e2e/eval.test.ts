import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolateHost, launch, screenshot, serveSessions, type IsolatedHost, type Served } from './harness';
import { DSH_SPEC as SPEC, slowSpec } from '../main/eval/slow-spec';

/*
 * The eval view in Chromium against the web host started with fixtures/eval/dsh.spec.yaml (and a
 * slow copy of it): the host opens on the evals, the spec runs from the UI with progress to 4/4,
 * the matrix shows strategies × models with the mock flagged, a cell drills into its runs and a
 * run into the compare view beside the original compaction — by keyboard too; a slow run cancels.
 */

let browser: Browser;
let dataDir: string;
let specDir: string;
let served: Served;
let page: Page;
const errors: string[] = [];
let host: IsolatedHost;

beforeAll(async () => {
  // The host runs in this process: results go to a temporary data folder.
  host = isolateHost('palimpsest-e2e-eval-');
  dataDir = host.dataDir;
  specDir = mkdtempSync(join(tmpdir(), 'palimpsest-e2e-evalspec-'));
  browser = await launch();
  served = await serveSessions([SPEC, slowSpec(specDir)]);
  page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(served.host.url);
});
afterAll(async () => {
  await page?.close();
  await served?.close();
  await browser?.close();
  host?.restore();
  rmSync(specDir, { recursive: true, force: true });
});

const progress = () => page.getByRole('region', { name: 'Eval progress' });
const matrix = () => page.getByRole('region', { name: 'Eval matrix' });
const rowValues = (p: Page) =>
  p
    .locator('.ev-table tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('th, td')].map((c) => (c.querySelector('.ev-value')?.textContent ?? c.textContent ?? '').trim()),
      ),
    );

describe('evals in the app', () => {
  it('opens on the evals when started with a spec, offering it by name', async () => {
    await expect.poll(() => page.getByRole('tab', { name: 'Evals' }).getAttribute('aria-selected')).toBe('true');
    const form = page.getByRole('form', { name: 'Eval run' });
    // The spec list loads after the tab shows.
    await expect.poll(() => form.getByLabel('Spec file').inputValue()).toBe(SPEC);
    expect(await form.getByLabel('Specs this host offers').locator('option').allTextContents()).toEqual([
      '',
      'dsh-compaction-recovery — dsh.spec.yaml',
      'dsh-slow — slow.spec.yaml',
    ]);
    // The spec was not opened as a session.
    expect(await page.locator('[role=tab][id^="tab-"]').count()).toBe(1);
  });

  it('refuses a spec the host was not started with, saying so', async () => {
    const form = page.getByRole('form', { name: 'Eval run' });
    await form.getByLabel('Spec file').fill('/etc/hostname.spec.yaml');
    await form.getByRole('button', { name: 'Run eval' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/^FORBIDDEN_PATH: Not allowed to read this spec/);
    await form.getByLabel('Spec file').fill(SPEC);
  });

  it('runs the spec from the UI: progress to 4/4 cells, then the matrix of strategies × models', async () => {
    await page.getByRole('button', { name: 'Run eval' }).click();
    await progress().waitFor();
    await expect.poll(() => progress().locator('.rr-state').textContent(), { timeout: 30_000 }).toBe('done');
    expect(await progress().getByRole('status').textContent()).toBe('4/4 cells');
    expect(
      await progress()
        .locator('progress')
        .evaluate((p: HTMLProgressElement) => [p.value, p.max]),
    ).toEqual([4, 4]);
    expect(await progress().textContent()).toMatch(
      /last: one-shot × mock:extractive #1: committed · recall 17.6 %.*4 cells run, 0 already in the results/,
    );
    await matrix().waitFor();
    await expect
      .poll(() => matrix().getByRole('status', { name: 'Verdict' }).textContent())
      .toBe('dsh-compaction-recovery · 4 runs · the spec sets no thresholds');
    expect(await page.locator('.ev-table thead th').allTextContents()).toEqual([
      'strategy \\ model',
      'none',
      'mock:replay-original',
      'mock:extractive',
    ]);
    expect(await rowValues(page)).toEqual([
      ['truncate', '5.9 %', '—', '—'],
      ['extractive', '35.3 %', '—', '—'],
      ['one-shot', '—', '5.9 %', '17.6 %'],
    ]);
    expect(await matrix().locator('.ev-cell .rr-mock').count()).toBe(2);
    await screenshot(page, 'eval-matrix-dsh');
    // Constraint recall: the replayed one-sentence summary keeps none of the fifteen premises.
    await matrix().getByLabel('Metric').selectOption('constraint');
    expect((await rowValues(page))[2]).toEqual(['one-shot', '—', '0.0 %', '13.3 %']);
    await matrix().getByLabel('Metric').selectOption('recall');
  });

  it('drills from a cell into its runs and from a run into the compare view, by keyboard', async () => {
    const cell = matrix().getByRole('button', { name: /^one-shot × mock:replay-original: 5.9 %/ });
    await cell.focus();
    await page.keyboard.press('Enter');
    const runs = page.getByRole('region', { name: 'Runs of the cell' });
    await runs.waitFor();
    expect(await runs.locator('h3').textContent()).toBe('one-shot × mock:replay-original all traces');
    expect(await runs.locator('tbody tr').count()).toBe(1);
    expect(await runs.locator('tbody tr td').nth(3).textContent()).toBe('committedmock');
    const compare = runs.getByRole('button', { name: /^Compare run #1 of one-shot × mock:replay-original/ });
    await compare.focus();
    await page.keyboard.press('Enter');
    const detail = page.getByRole('region', { name: 'Run compared with the original' });
    await detail.waitFor();
    const cmp = detail.getByRole('region', { name: 'Comparison' });
    await cmp.locator('table').waitFor();
    expect(await cmp.locator('thead th[data-subject]').allTextContents()).toEqual([
      expect.stringMatching(/^original \(/),
      'one-shot @ mock:replay-original [mock] #1',
    ]);
    expect(await detail.locator('.ev-score tbody tr').first().textContent()).toMatch(/^constraints0\/1515 missed/);
    // The keyboard focus went to the run's heading.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H3');
    await detail.scrollIntoViewIfNeeded();
    await screenshot(page, 'eval-run-compare-dsh');
    await detail.getByRole('button', { name: 'Back to the runs' }).click();
    await runs.waitFor();
  });

  it('compares with a baseline: the same results show no regression, and the filter hides every equal cell', async () => {
    const picker = page.getByRole('form', { name: 'Results to show' });
    const file = await picker.getByLabel('Results file', { exact: true }).inputValue();
    expect(file.startsWith(join(dataDir, 'evals'))).toBe(true);
    await picker.getByLabel('Baseline (optional)').fill(file);
    await picker.getByRole('button', { name: 'Show results' }).click();
    await expect.poll(() => matrix().getByRole('status', { name: 'Verdict' }).textContent()).toMatch(/no regression against the baseline$/);
    await matrix().getByLabel('Only cells different from the baseline').check();
    expect(await matrix().textContent()).toMatch(
      /No cell differs from the baseline on this metric\..*4 cells equal to the baseline hidden/,
    );
    await matrix().getByLabel('Only cells different from the baseline').uncheck();
  });

  it('cancels a slow eval: progress stops at the cell in flight, the job ends cancelled saying so', async () => {
    const form = page.getByRole('form', { name: 'Eval run' });
    await form.getByLabel('Specs this host offers').selectOption({ label: 'dsh-slow — slow.spec.yaml' });
    await form.getByRole('button', { name: 'Run eval' }).click();
    await expect.poll(() => progress().getByRole('status').textContent(), { timeout: 20_000 }).toBe('1/2 cells');
    expect(await progress().locator('.rr-state').textContent()).toBe('running');
    await screenshot(page, 'eval-slow-running');
    const t0 = Date.now();
    await progress().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => progress().locator('.rr-state').textContent()).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await progress().getByRole('note').textContent()).toMatch(/^cancelled: no new cells scheduled/);
    expect(await progress().getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    // The cancelled results open as the matrix: only the cell that finished.
    await expect.poll(() => matrix().getByRole('status', { name: 'Verdict' }).textContent()).toMatch(/^dsh-slow · 1 run/);
    await screenshot(page, 'eval-cancelled');
    expect(errors).toEqual([]);
  });
});
