import { describe, expect, it } from 'vitest';
import { codexImporter } from '../../../../src/main/importers/codex';
import { detectFormat } from '../../../../src/main/importers/registry';
import { CanonicalEvent, type EventBody } from '../../../../src/shared/model/event';
import { SAMPLES, compacted, errors, importFixture, importValues, meta, payload, readFixture, started, user } from './helpers';

describe.each(Object.entries(SAMPLES))('real rollout %s', (_name, rel) => {
  const r = importFixture(rel);

  it('imports with no error or warning diagnostics', () => {
    expect(errors(r.diagnostics)).toEqual([]);
    expect(r.diagnostics.filter((d) => d.severity === 'warning')).toEqual([]);
  });

  it('emits only valid canonical events, one session first, unique item ids', () => {
    for (const e of r.events) {
      const { seq: _seq, line: _line, ...body } = e;
      const parsed = CanonicalEvent.safeParse(body);
      expect(parsed.success, `line ${e.line}: ${JSON.stringify(parsed.error?.issues[0])}`).toBe(true);
    }
    expect(r.events[0]?.kind).toBe('session');
    expect(r.of('session')).toHaveLength(1);
    const ids = r.of('item').map((e) => e.item.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps every line: each line yields at least one event', () => {
    const lines = new Set(r.events.map((e) => e.line));
    for (let i = 1; i < r.lines.length; i++) expect(lines.has(i), `line ${i}`).toBe(true);
  });

  it('is recognised as Codex by sniff, and by no other importer', () => {
    const first = readFixture(rel).slice(0, 16);
    expect(codexImporter.sniff(first, rel)).toBeGreaterThanOrEqual(0.9);
    expect(detectFormat(first, rel)?.importer.id).toBe('codex');
  });

  it('rehydrates every event from its own line to the same event', () => {
    for (const e of r.events) {
      const { seq: _seq, line: _line, ...body } = e;
      expect(codexImporter.rehydrate(body, r.lines[e.line] ?? {})).toEqual(body);
    }
  });
});

describe('rehydrate', () => {
  /** The in-memory form of an event: long texts cut to a preview, as the event log keeps them. */
  function shorten(e: EventBody): EventBody {
    const cut = (t: string) => ({ text: t.slice(0, 3), elided: Math.max(0, t.length - 3) });
    if (e.kind === 'item')
      return {
        ...e,
        item: { ...e.item, blocks: e.item.blocks.map((b) => (b.type === 'text' || b.type === 'reasoning' ? { ...b, ...cut(b.text) } : b)) },
      };
    if (e.kind === 'header' && e.system) return { ...e, system: e.system.map((b) => (b.type === 'text' ? { ...b, ...cut(b.text) } : b)) };
    if (e.kind === 'compaction/summary') return { ...e, summary: e.summary.map((b) => (b.type === 'text' ? { ...b, ...cut(b.text) } : b)) };
    return e;
  }
  const body = (e: EventBody & { seq: number; line: number }): EventBody => {
    const { seq: _s, line: _l, ...rest } = e;
    return rest as EventBody;
  };

  it('restores full text of items, the system prompt, summaries and replacement items, keeping what the import derived', () => {
    const u = user('a long user message');
    const r = importValues([
      meta(),
      started(),
      u,
      compacted('Summary text', [
        payload(u),
        payload(user('Another language model started to solve this problem and produced a summary of its thinking process. Summary text')),
      ]),
    ]);
    for (const e of r.events) {
      const full = body(e);
      expect(codexImporter.rehydrate(shorten(full), r.lines[e.line] ?? {})).toEqual(full);
    }
  });

  it("a legacy rebuild restores the summary from its line, and each copy from its original's line", () => {
    const r = importValues([meta(), started(), user('keep this'), compacted('Summary text')]);
    const items = r.of('item').filter((e) => e.item.id.startsWith('L4.'));
    expect(items.map((e) => [e.item.id, e.line, e.item.derivation?.kind])).toEqual([
      ['L4.r1', 4, 'checkpoint'],
      ['L4.r0', 3, 'reinjected'],
    ]);
    for (const e of items) {
      const full = body(e);
      expect(codexImporter.rehydrate(shorten(full), r.lines[e.line] ?? {})).toEqual(full);
    }
  });

  it('returns null when the line no longer yields the event', () => {
    const r = importValues([meta(), started(), user('hi')]);
    const it0 = r.of('item')[0];
    expect(it0).toBeDefined();
    expect(codexImporter.rehydrate(body(it0!), r.lines[2] ?? {})).toBeNull();
    expect(codexImporter.rehydrate(body(it0!), { type: 'response_item', payload: { type: 'message' } })).toBeNull();
    const header = r.of('header')[0];
    expect(codexImporter.rehydrate(body(header!), r.lines[3] ?? {})).toBeNull();
  });
});
