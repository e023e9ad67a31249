// A CPU profile of a Chromium page over one stretch of work (Chrome's `Profiler` through
// playwright's CDP session), summed by function: where the page's own time goes. Names are the
// bundle's; build the renderer unminified (PALIMPSEST_RENDERER_MINIFY=0 npx electron-vite build)
// to read them.
import type { Page } from 'playwright';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export interface PageProfile {
  /** Microseconds sampled in all, and in the page's own functions (not idle, not the collector). */
  readonly totalMs: number;
  readonly busyMs: number;
  /** The functions with the most self time, most first. */
  readonly top: readonly { readonly name: string; readonly selfMs: number }[];
}

const IDLE = new Set(['(idle)', '(program)', '(root)']);

/** Sums a profile's samples into self time per function (name and place in its script). */
export function summarise(profile: CpuProfile, count = 25): PageProfile {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  let busy = 0;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i] ?? -1);
    // A sample's time is the interval to the next one.
    const us = deltas[i + 1] ?? 0;
    total += us;
    if (!node || IDLE.has(node.callFrame.functionName)) continue;
    busy += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url.split('/').pop() ?? ''}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
  }
  const top = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({ name, selfMs: us / 1000 }));
  return { totalMs: total / 1000, busyMs: busy / 1000, top };
}

/** Runs `work` with the page's profiler on, and returns what it sampled. */
export async function profiling<T>(page: Page, work: () => Promise<T>): Promise<{ value: T; profile: PageProfile }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Profiler.enable');
    // 100 µs: a first view is a few hundred milliseconds of work; the default 1 ms is too coarse.
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    const value = await work();
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
    return { value, profile: summarise(profile) };
  } finally {
    await cdp.detach();
  }
}
