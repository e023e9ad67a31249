import { describe, expect, it } from 'vitest';
import { dshImporter } from '../../../../src/main/importers/dsh';
import type { EventBody } from '../../../../src/shared/model/event';
import { SAMPLES, importFixture } from './helpers';

/** The in-memory form of an event: long texts cut to a preview, as the event log keeps them. */
function shorten(e: EventBody): EventBody {
  const cut = (t: string) => ({ text: t.slice(0, 10), elided: Math.max(0, t.length - 10) });
  if (e.kind === 'item') {
    return {
      ...e,
      item: { ...e.item, blocks: e.item.blocks.map((b) => (b.type === 'text' || b.type === 'reasoning' ? { ...b, ...cut(b.text) } : b)) },
    };
  }
  if (e.kind === 'header' && e.system) return { ...e, system: e.system.map((b) => (b.type === 'text' ? { ...b, ...cut(b.text) } : b)) };
  if (e.kind === 'compaction/summary') return { ...e, summary: e.summary.map((b) => (b.type === 'text' ? { ...b, ...cut(b.text) } : b)) };
  return e;
}

function body<T extends { seq: number; line: number }>(e: T): Omit<T, 'seq' | 'line'> {
  const { seq: _seq, line: _line, ...rest } = e;
  return rest;
}

describe('rehydrate', () => {
  const r = importFixture(SAMPLES.compaction);

  it('restores the full text of items, headers and summaries, keeping what the import derived', () => {
    for (const e of r.events) {
      if (e.kind !== 'item' && e.kind !== 'header' && e.kind !== 'compaction/summary') continue;
      const full = body(e) as EventBody;
      const short = shorten(full);
      expect(dshImporter.rehydrate(short, r.lines[e.line] ?? {})).toEqual(full);
    }
    const checkpoint = r.of('item').find((e) => e.item.derivation?.kind === 'checkpoint');
    expect(checkpoint).toBeDefined();
    const back = dshImporter.rehydrate(shorten(body(checkpoint!) as EventBody), r.lines[checkpoint!.line] ?? {});
    expect(back).toMatchObject({ op: { op: 'replace' }, item: { derivation: { kind: 'checkpoint' } }, sources: checkpoint!.sources });
  });

  it('returns events of packed chunk rows unchanged', () => {
    const p = importFixture(SAMPLES.packed);
    const member = p.events.find((e) => e.line === 12 && e.kind === 'record');
    expect(member).toBeDefined();
    const b = body(member!) as EventBody;
    expect(dshImporter.rehydrate(b, p.lines[12] ?? {})).toBe(b);
  });

  it('returns null when the line no longer yields the event', () => {
    const item = r.of('item')[0];
    expect(item).toBeDefined();
    expect(dshImporter.rehydrate(body(item!) as EventBody, { type: 'turn/start', data: { turn: 1 } })).toBeNull();
    expect(dshImporter.rehydrate(body(item!) as EventBody, { type: 'user/message', data: {} })).toBeNull();
    const summary = r.of('compaction/summary')[0];
    expect(dshImporter.rehydrate(body(summary!) as EventBody, { type: 'compaction/end', data: {} })).toBeNull();
  });
});
