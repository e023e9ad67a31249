import { resolve } from 'node:path';
import { chromium } from 'playwright';
import { createHostContext } from '../src/main/host/host-context';
import { SessionInspector } from '../src/main/session/inspector';
import { loadSession } from '../src/main/session/load';
import { startWebHost } from '../src/main/web/server';

// The web UI's side of the follow soak (soak.ts --ui): the built renderer (out/renderer, from
// `npx electron-vite build`) served by the web host in this process, as `palimpsest serve` serves
// it, followed in Debian's Chromium with the app's Follow button. A MutationObserver in the page
// writes down when the timeline's request count or branch changes, on the page's clock, which is
// set against this process's clock once at the start.

const CHROMIUM = process.env.PALIMPSEST_CHROMIUM ?? '/usr/bin/chromium';
const RENDERER_DIR = resolve('out', 'renderer');

/** A change on screen: requests in the timeline, the branch picked (null: the session has one), when (ms since the epoch, this process's clock). */
export type Shown = readonly [requests: number, branch: string | null, at: number];

export interface UiFollow {
  /** Every change seen on screen, in order. */
  changes(): Promise<Shown[]>;
  /** The model view's heading as the page shows it now ("Model view at request #N · M items"). */
  heading(): Promise<string>;
  /** How far the page's clock may be from this one's, in ms (half the round trip it was set with). */
  readonly clockError: number;
  /** Console errors the page logged. */
  readonly errors: readonly string[];
  close(): Promise<void>;
}

const now = (): number => performance.timeOrigin + performance.now();

/** Opens `path` in the web UI in Chromium and turns Follow on. */
export async function followInChromium(path: string): Promise<UiFollow> {
  const context = await createHostContext({ paths: [path], machine: false });
  const host = await startWebHost({ port: 0, handlers: context.handlers, rendererDir: RENDERER_DIR });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const close = async (): Promise<void> => {
    await browser.close();
    await host.dispose();
    context.dispose();
  };
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    page.on('pageerror', (e) => void errors.push(String(e)));
    await page.goto(host.url);
    // The session may have no request yet: its view is there once the Follow button is.
    const toggle = page.getByRole('button', { name: 'Follow' });
    await toggle.waitFor({ timeout: 120_000 });
    await toggle.click();
    await page.locator('button[aria-pressed=true]', { hasText: 'Follow' }).waitFor();
    // The page's clock against this one: the smallest round trip of a few.
    let offset = 0;
    let error = Infinity;
    for (let k = 0; k < 10; k++) {
      const t0 = now();
      const there = await page.evaluate(() => performance.timeOrigin + performance.now());
      const t1 = now();
      if ((t1 - t0) / 2 < error) {
        error = (t1 - t0) / 2;
        offset = there - (t0 + t1) / 2;
      }
    }
    await page.evaluate(() => {
      const seen: [number, string | null, number][] = [];
      (window as unknown as { soakSeen: typeof seen }).soakSeen = seen;
      const look = (): void => {
        const slider = document.querySelector<HTMLInputElement>('input[aria-label="Selected request"]');
        const picker = document.querySelector<HTMLSelectElement>('select[aria-label="Branch"]');
        const requests = slider ? Number(slider.max) + 1 : 0;
        const branch = picker ? picker.value : null;
        const last = seen[seen.length - 1];
        if (!last || last[0] !== requests || last[1] !== branch) seen.push([requests, branch, performance.timeOrigin + performance.now()]);
      };
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      look();
    });
    return {
      clockError: error,
      errors,
      async changes() {
        const seen = await page.evaluate(() => (window as unknown as { soakSeen: [number, string | null, number][] }).soakSeen);
        return seen.map(([n, b, t]) => [n, b, t - offset] as const);
      },
      async heading() {
        return (await page.locator('.session-view .pane.view h2').textContent()) ?? '';
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Line numbers (1-based) of the copy: the first `first` lines were there before the run; line first + k + 1 is write k. */
interface UiRun {
  readonly path: string;
  readonly first: number;
  /** Starts the writer; resolves with each write's [when, bytes after it] once it is done. */
  write(): Promise<[number, number][]>;
}

export interface UiSoakResult {
  readonly linesWritten: number;
  readonly finalBytes: number;
  readonly requestsWritten: number;
  readonly writeToScreenMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly clockErrorMs: number;
  /** Requests of the branch shown at the end that the page never showed, or showed before their line was written (a clock gone wrong). */
  readonly missedRequests: number;
  /** Requests of an older branch that the page never showed because it went on to a newer one (a new root) first. */
  readonly requestsPassedOver: number;
  readonly requestsOnBranchesNeverShown: number;
  readonly equalsFreshLoad: { readonly requests: boolean; readonly branch: boolean; readonly lastView: boolean };
  readonly consoleErrors: number;
}

const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

/**
 * The soak in the web UI: follows the copy in Chromium while the writer writes, waits until the
 * page shows what a fresh load of the end shows, and measures, for every request the writer's
 * lines made, the time from the write of its line to the first change on screen that shows it
 * (its branch in the picker, the timeline counting it).
 */
export async function soakInChromium(run: UiRun): Promise<UiSoakResult> {
  const ui = await followInChromium(run.path);
  try {
    const writes = await run.write();
    const fresh = new SessionInspector(await loadSession(run.path));
    try {
      const branch = fresh.defaultBranch;
      const replays = new Map(fresh.branches.map((b) => [b.name, fresh.replay(b.name)]));
      const final = replays.get(branch)?.requests.length ?? 0;
      const lastView = fresh.view(final - 1, branch);
      const wanted = `Model view at request #${final - 1} · ${lastView?.items.length ?? 0} items`;
      // Caught up: the page shows the fresh load's last request and view.
      const only = fresh.branches.length < 2 ? null : branch;
      const deadline = Date.now() + 120_000;
      let heading = '';
      for (;;) {
        const changes = await ui.changes();
        const last = changes[changes.length - 1];
        heading = (await ui.heading()).replace(/\s+/g, ' ').trim();
        if ((last && last[0] === final && last[1] === only && heading === wanted) || Date.now() > deadline) break;
        await new Promise((ok) => setTimeout(ok, 100));
      }
      const changes = await ui.changes();
      const shownAt = (b: string, index: number): number | null => {
        const c = changes.find(([n, on]) => (on ?? fresh.branches[0]?.name) === b && n > index);
        return c ? c[2] : null;
      };
      const latencies: number[] = [];
      let missed = 0;
      // The page shows one branch at a time, the newest: requests of branches it never showed are counted apart.
      const showed = new Set(changes.map(([, on]) => on ?? fresh.branches[0]?.name));
      let elsewhere = 0;
      let passedOver = 0;
      for (const [b, r] of replays) {
        for (const req of r.requests) {
          if (!showed.has(b)) {
            elsewhere++;
            continue;
          }
          const line = fresh.session.loc(req.seq)?.line ?? 0;
          const write = writes[line - run.first - 1];
          if (!write) continue;
          const at = shownAt(b, req.index);
          if (at !== null && at >= write[0]) latencies.push(at - write[0]);
          // The page went on to a newer branch (a new root) before it showed this request of the older one.
          else if (at === null && b !== branch) passedOver++;
          else missed++;
        }
      }
      const endChange = changes[changes.length - 1];
      return {
        linesWritten: writes.length,
        finalBytes: writes[writes.length - 1]?.[1] ?? 0,
        requestsWritten: latencies.length + missed + passedOver,
        writeToScreenMs: {
          p50: Math.round(percentile(latencies, 50)),
          p99: Math.round(percentile(latencies, 99)),
          max: Math.round(Math.max(...latencies)),
        },
        clockErrorMs: Math.round(ui.clockError * 10) / 10,
        missedRequests: missed,
        requestsOnBranchesNeverShown: elsewhere,
        requestsPassedOver: passedOver,
        equalsFreshLoad: {
          requests: endChange?.[0] === final,
          branch: (endChange?.[1] ?? null) === only,
          lastView: heading === wanted,
        },
        consoleErrors: ui.errors.length,
      };
    } finally {
      await fresh.session.dispose();
    }
  } finally {
    await ui.close();
  }
}
