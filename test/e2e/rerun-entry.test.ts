import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolateHost, launch, screenshot, type IsolatedHost } from './harness';
import { openFixture, type Opened } from './session-helpers';
import { job, runAndWait } from './rerun-helpers';

/*
 * Ways into re-run & compare and what the panel sends, in Chromium against the web host: the
 * compaction detail's "Re-run this compaction" (by keyboard) opens the panel aimed at that
 * compaction; the options editor sends typed options (clear-tools keepLast=1) and the job and its
 * run show them; an option the strategy does not know comes back as the strategy's own sentence;
 * and the web host stores no key, says so, and answers the key methods NOT_AVAILABLE.
 */

let browser: Browser;
let host: IsolatedHost;

beforeAll(async () => {
  // The host runs in this process: results and settings go to a temporary data folder, and no key is set.
  host = isolateHost('palimpsest-e2e-rerun-entry-', { noKeys: true });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  host?.restore();
});

describe('re-run entry points', () => {
  let o: Opened;
  beforeAll(async () => {
    o = await openFixture(browser, 'fixtures/palimpsest/compaction-lifecycle.jsonl');
  });
  afterAll(async () => {
    await o?.close();
  });

  const compactionDetail = async (id: string): Promise<void> => {
    await o.page.getByRole('tab', { name: 'Inspect' }).click();
    await o.page.getByRole('tab', { name: /^Compaction/ }).click();
    await o.page.locator('.sv-compaction').getByRole('combobox', { name: 'Compaction' }).selectOption(id);
    await o.page.locator('.sv-compaction-head', { hasText: id }).waitFor();
  };

  it('"Re-run this compaction", pressed with the keyboard, opens the panel with that compaction selected and focused', async () => {
    const page = o.page;
    await compactionDetail('cmp_3');
    const button = page.getByRole('button', { name: 'Re-run this compaction' });
    await button.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('form', { name: 'Re-run settings' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Re-run & compare' }).getAttribute('aria-selected')).toBe('true');
    const target = page.getByRole('form', { name: 'Re-run settings' }).getByLabel('Compaction', { exact: true });
    await expect.poll(() => target.inputValue()).toBe('cmp_3');
    await expect.poll(() => target.evaluate((e) => e === document.activeElement)).toBe(true);
    expect(await page.getByRole('radio', { name: 'a compaction' }).isChecked()).toBe(true);
    await screenshot(page, 'rerun-entry-compaction');

    // Again from another compaction, now that the panel exists: it follows.
    await compactionDetail('cmp_4');
    await page.getByRole('button', { name: 'Re-run this compaction' }).click();
    await expect
      .poll(() => page.getByRole('form', { name: 'Re-run settings' }).getByLabel('Compaction', { exact: true }).inputValue())
      .toBe('cmp_4');
    expect(o.errors).toEqual([]);
  });
});

describe('strategy options and keys on the bundled sample', () => {
  let o: Opened;
  beforeAll(async () => {
    o = await openFixture(browser, 'fixtures/palimpsest/basic.jsonl');
    await o.page.getByRole('tab', { name: 'Re-run & compare' }).click();
    await o.page.getByRole('form', { name: 'Re-run settings' }).waitFor();
  });
  afterAll(async () => {
    await o?.close();
  });

  it('sends clear-tools keepLast=1 from the options editor; the job, its run and the runs list show it', async () => {
    const page = o.page;
    await page.getByLabel('Strategy').selectOption('clear-tools');
    await page.getByText('Options of clear-tools').click();
    const keepLast = page.getByLabel('keepLast', { exact: true });
    expect(await keepLast.getAttribute('placeholder')).toBe('3');
    // Checked before sending: nothing starts while it is wrong.
    await keepLast.fill('-1');
    expect(await page.locator('.rr-options [role=alert]').textContent()).toBe('keepLast must be a whole number of at least 0.');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    expect(await page.locator('.rr-actions [role=alert]').textContent()).toBe(
      'Options of clear-tools: keepLast must be a whole number of at least 0.',
    );
    expect(await page.locator('.rr-job').count()).toBe(0);

    await keepLast.fill('1');
    await runAndWait(page, 'done');
    expect(await job(page).locator('.rr-job-head').textContent()).toMatch(/clear-tools\s*keepLast=1\s*on compaction cmp_01/);
    expect(await job(page).locator('.rr-run-line').textContent()).toMatch(/#1 committed/);
    const row = page.getByRole('region', { name: 'Runs', exact: true }).locator('tbody tr').first();
    await expect.poll(() => row.textContent()).toMatch(/clear-tools #1\/1\s*keepLast=1/);

    // Without the option (the default keeps 3 results) the candidate is larger: keepLast reached the strategy.
    await keepLast.fill('');
    await runAndWait(page, 'done');
    const tokens = async (i: number) =>
      Number((await job(page, i).locator('.rr-run-line').textContent())?.match(/→ ([\d,]+) tokens/)?.[1]?.replace(/,/g, ''));
    expect(await tokens(0)).toBeGreaterThan(await tokens(1));
    await screenshot(page, 'rerun-options-keeplast');
  });

  it("an option the strategy does not know fails the run with the strategy's own sentence", async () => {
    const page = o.page;
    await page.getByLabel('Other options', { exact: true }).fill('keepFirst=2');
    await runAndWait(page, 'done');
    expect(await job(page).locator('.rr-job-head').textContent()).toMatch(/keepFirst=2/);
    expect(await job(page).locator('.rr-run-line').textContent()).toMatch(/#1 failed.*invalid options: .*Unrecognized key: "keepFirst"/);
    await page.getByLabel('Other options', { exact: true }).fill('');
    expect(o.errors).toEqual([]);
  });

  it('the web host stores no key: the panel says so and offers no field; the key methods answer NOT_AVAILABLE', async () => {
    const page = o.page;
    await page.getByText('API keys', { exact: true }).click();
    const editor = page.locator('.rr-keys-editor');
    expect(await editor.getByRole('note').textContent()).toMatch(
      /does not store API keys.*environment variables \(OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY\)/,
    );
    expect(await editor.locator('input[type=password]').count()).toBe(0);
    expect(await editor.getByRole('list', { name: 'API keys' }).textContent()).toMatch(/anthropic\s*not set \(ANTHROPIC_API_KEY\)/);
    await screenshot(page, 'rerun-keys-web-host');
    // The same host's API, with this page's credentials (the token in its tab's storage), as the renderer calls it.
    const answers = await page.evaluate(async () => {
      const auth = `Bearer ${sessionStorage.getItem('palimpsest.hostToken') ?? ''}`;
      const call = async (method: string, input: unknown) =>
        (
          await fetch(`/api/${method}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: auth },
            body: JSON.stringify(input),
          })
        ).json() as Promise<unknown>;
      return [
        await call('setProviderKey', { provider: 'openai', key: 'web-host-key-0123456789-WXYZ' }),
        await call('removeProviderKey', { provider: 'openai' }),
      ];
    });
    expect(answers).toEqual([
      {
        ok: false,
        error: { code: 'NOT_AVAILABLE', message: expect.stringMatching(/^This host does not store API keys.*environment variables/) },
      },
      { ok: false, error: { code: 'NOT_AVAILABLE', message: expect.stringMatching(/^This host does not store API keys/) } },
    ]);
    expect(JSON.stringify(answers)).not.toContain('web-host-key');
  });
});
