// @vitest-environment happy-dom
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { createElement } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandlers } from '../../../src/main/api/handlers';
import { SessionRegistry } from '../../../src/main/api/sessions';
import { closeSessionTokens } from '../../../src/main/api/session/tokens';
import type { PalimpsestApi } from '../../../src/shared/api/contract';
import { SessionContext } from '../../../src/renderer/session/context';
import { ModelViewPane } from '../../../src/renderer/session/ModelViewPane';
import { createSessionStore, type SessionStore } from '../../../src/renderer/session/store';

// The model view's virtual list against the real session store and handlers, in a page whose
// layout is simulated (happy-dom lays nothing out): a row is as tall as the item it holds, and a
// ResizeObserver reports the rows whose height changed since it last reported them, as a browser's
// does between layout and paint. The end-to-end test (test/e2e/session-virtual-rows.test.ts)
// checks the same in Chromium; this one runs where no browser is installed.

const ITEMS = 60;
const LINES = 14;
const CLOSED = 52;
const LINE = 16;
const SCROLLER = 600;

function sessionText(): string {
  const lines: object[] = [
    { kind: 'session', format: 'palimpsest', version: 1, id: 'model-view-rows', harness: 'test' },
    {
      kind: 'header',
      system: [{ type: 'text', text: 'You are a careful coding agent.' }],
      route: { provider: 'anthropic', model: 'claude-test', window: 200000, maxOutput: 8192 },
    },
  ];
  for (let i = 0; i < ITEMS; i++) {
    const text = Array.from({ length: LINES }, (_, l) => `item ${i}, line ${l}`).join('\n');
    lines.push({ kind: 'item', item: { id: `i${i}`, role: i % 2 === 0 ? 'user' : 'assistant', blocks: [{ type: 'text', text }] } });
    // Two requests: the first sees half the items, the second all of them.
    if (i === ITEMS / 2 - 1) lines.push({ kind: 'request', id: 'q0' });
  }
  lines.push({ kind: 'request', id: 'q1' });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** The simulated layout: closed items and placeholders 52 px, an opened one as tall as its lines. */
function heightOf(el: Element): number {
  if (el.classList.contains('scroll')) return SCROLLER;
  if (!el.classList.contains('vrow')) return 0;
  const item = el.firstElementChild;
  if (!item || item.classList.contains('fixed')) return CLOSED;
  const pre = item.querySelector('pre.text');
  return pre ? 40 + LINE * (pre.textContent ?? '').split('\n').length : CLOSED + 6;
}

/** Reports what a browser's ResizeObserver would: each observed element once, then on each change of height. */
class FakeResizeObserver {
  static readonly live = new Set<FakeResizeObserver>();
  private readonly reported = new Map<Element, number>();
  constructor(private readonly callback: ResizeObserverCallback) {
    FakeResizeObserver.live.add(this);
  }
  observe(el: Element): void {
    this.reported.set(el, Number.NaN);
  }
  unobserve(el: Element): void {
    this.reported.delete(el);
  }
  disconnect(): void {
    this.reported.clear();
    FakeResizeObserver.live.delete(this);
  }
  deliver(): boolean {
    const entries: ResizeObserverEntry[] = [];
    for (const [el, last] of this.reported) {
      const h = heightOf(el);
      if (!el.isConnected || h === last) continue;
      this.reported.set(el, h);
      const box = [{ blockSize: h, inlineSize: 500 }];
      entries.push({
        target: el,
        borderBoxSize: box,
        contentBoxSize: box,
        devicePixelContentBoxSize: box,
        contentRect: { height: h, width: 500 },
      } as unknown as ResizeObserverEntry);
    }
    if (entries.length > 0) this.callback(entries, this as unknown as ResizeObserver);
    return entries.length > 0;
  }
}

/** One frame's worth of observer deliveries, repeated while they change something (as a browser's loop does). */
async function frame(): Promise<void> {
  await act(async () => {
    for (let depth = 0; depth < 20; depth++) {
      let any = false;
      for (const ro of [...FakeResizeObserver.live]) any = ro.deliver() || any;
      if (!any) break;
    }
  });
}

const saved = new Map<string, PropertyDescriptor | undefined>();
function layout(prop: 'offsetHeight' | 'clientHeight' | 'offsetWidth' | 'clientWidth', get: (el: HTMLElement) => number): void {
  saved.set(prop, Object.getOwnPropertyDescriptor(HTMLElement.prototype, prop));
  Object.defineProperty(HTMLElement.prototype, prop, {
    configurable: true,
    get() {
      return get(this as HTMLElement);
    },
  });
}

let dir: string;
let registry: SessionRegistry;
let api: PalimpsestApi;

beforeAll(() => {
  // Tells React that act() is used here, so it flushes effects inside it and does not warn.
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  dir = mkdtempSync(join(tmpdir(), 'palimpsest-view-rows-'));
  writeFileSync(join(dir, 'rows.jsonl'), sessionText());
  registry = new SessionRegistry({ allow: 'any' });
  api = createHandlers({ registry, initialPaths: [] });
  vi.stubGlobal('ResizeObserver', FakeResizeObserver);
  layout('offsetHeight', heightOf);
  layout('clientHeight', heightOf);
  layout('offsetWidth', () => 500);
  layout('clientWidth', () => 500);
});
afterEach(cleanup);
afterAll(async () => {
  for (const [prop, d] of saved) {
    if (d) Object.defineProperty(HTMLElement.prototype, prop, d);
    else delete (HTMLElement.prototype as unknown as Record<string, unknown>)[prop];
  }
  vi.unstubAllGlobals();
  registry.dispose();
  await closeSessionTokens();
  rmSync(dir, { recursive: true, force: true });
});

/** Wait for the page to get somewhere, a frame at a time: the observers deliver while it waits, as in a browser. */
async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !what(); i++) {
    await act(() => new Promise((r) => setTimeout(r, 5)));
    await frame();
  }
  expect(what()).toBe(true);
}

async function opened(): Promise<{ store: SessionStore; container: HTMLElement }> {
  const o = await api.openSession({ path: join(dir, 'rows.jsonl') });
  if (!o.ok) throw new Error(o.error.message);
  const store = createSessionStore(api, o.value.sessionId);
  await store.getState().load();
  const { container } = render(createElement(SessionContext.Provider, { value: store }, createElement(ModelViewPane)));
  await frame();
  await until(() => container.querySelector('.item[data-position="5"]') !== null);
  await frame();
  return { store, container };
}

/** Each drawn row's top (from the virtualizer's `start`) and bottom (its simulated height), top to bottom. */
function rows(container: HTMLElement): { index: string; top: number; bottom: number }[] {
  return [...container.querySelectorAll<HTMLElement>('.vrow')]
    .map((el) => {
      const top = Number(/translateY\(([-\d.]+)px\)/.exec(el.style.transform)?.[1]);
      return { index: el.dataset.index ?? '?', top, bottom: top + heightOf(el) };
    })
    .sort((a, b) => a.top - b.top);
}

function overlaps(container: HTMLElement): string[] {
  const rs = rows(container);
  const found: string[] = [];
  for (let i = 1; i < rs.length; i++) {
    const [a, b] = [rs[i - 1]!, rs[i]!];
    if (b.top < a.bottom) found.push(`row ${a.index} [${a.top}, ${a.bottom}) and row ${b.index} [${b.top}, ${b.bottom})`);
  }
  return found;
}

const click = (container: HTMLElement, position: number) =>
  act(() => {
    fireEvent.click(container.querySelector(`.item[data-position="${position}"]`)!);
  });
const openTexts = (container: HTMLElement) => container.querySelectorAll('.item[aria-expanded=true] pre.text').length;

describe('model view rows', () => {
  it('opening several items in quick succession leaves no two rows overlapping, nor gaps', async () => {
    const { container } = await opened();
    // A frame between clicks (a user's clicks are at least that far apart), none waiting for texts.
    for (const p of [0, 1, 2, 3, 4]) {
      await click(container, p);
      await frame();
    }
    await until(() => openTexts(container) === 5);
    await frame();
    await frame();
    expect(overlaps(container)).toEqual([]);
    const rs = rows(container);
    // Packed: each row starts where the one above ends.
    for (let i = 1; i < rs.length; i++) expect(rs[i]!.top).toBe(rs[i - 1]!.bottom);
    expect(rs.filter((r) => r.bottom - r.top > 100)).toHaveLength(5);
  });

  it('an opened row keeps its height when the next one opens after its text arrived', async () => {
    const { container } = await opened();
    for (const p of [0, 1, 2]) {
      await click(container, p);
      await until(() => openTexts(container) === p + 1);
      await frame();
      expect(overlaps(container)).toEqual([]);
    }
  });

  it('closing opened items gives their rows back their closed height', async () => {
    const { container } = await opened();
    for (const p of [0, 1, 2, 3]) await click(container, p);
    await until(() => openTexts(container) === 4);
    await frame();
    await click(container, 1);
    await click(container, 3);
    await frame();
    expect(overlaps(container)).toEqual([]);
    const rs = rows(container);
    for (let i = 1; i < rs.length; i++) expect(rs[i]!.top).toBe(rs[i - 1]!.bottom);
    expect(rs.filter((r) => r.bottom - r.top > 100).map((r) => r.index)).toEqual(['0', '2']);
  });

  it('another request starts from closed rows, with no size left from the one before', async () => {
    const { store, container } = await opened();
    for (const p of [0, 2]) await click(container, p);
    await until(() => openTexts(container) === 2);
    await frame();
    // Scrolled down far enough that the opened rows are no longer drawn (nor re-measured).
    const scroller = container.querySelector<HTMLElement>('.scroll')!;
    await act(() => {
      scroller.scrollTop = 1200;
      fireEvent.scroll(scroller);
    });
    await until(
      () => container.querySelector('.vrow[data-index="2"]') === null && container.querySelector('.item[data-position="25"]') !== null,
    );
    await act(() => store.getState().select(1));
    await until(() => store.getState().head?.request.index === 1 && container.querySelector('.item[data-position="25"]') !== null);
    await frame();
    expect(overlaps(container)).toEqual([]);
    const spacer = container.querySelector<HTMLElement>('.spacer');
    expect(spacer?.style.height).toBe(`${ITEMS * CLOSED}px`);
    expect(rows(container).map((r) => r.top)).toEqual(rows(container).map((r) => Number(r.index) * CLOSED));
    await click(container, 25);
    await until(() => openTexts(container) === 1);
    await frame();
    expect(overlaps(container)).toEqual([]);
  });
});
