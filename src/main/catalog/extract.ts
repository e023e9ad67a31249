import type { Block } from '../../shared/model/content';
import { blockIsElided } from '../../shared/model/content';
import type { LogEvent } from '../../shared/model/event';
import { itemKind } from '../../shared/model/item';
import type { ItemRecord } from '../../shared/replay/records';
import { fateAt } from '../../shared/replay/view';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { type HealthFact, healthFact } from './health-row';

/*
 * What the session index keeps of one session beyond the fast scan: its requests, compactions,
 * findings and the text of every item of the default branch with that item's fate at the latest
 * request — read with the real importers and replay (the same as `palimpsest inspect`), so that a
 * search hit says what the session view says.
 */

export interface IndexedItem {
  readonly index: number;
  readonly id: string;
  /** The event that made it. */
  readonly seq: number;
  readonly role: string;
  readonly kind: string;
  /** The first request after the item was made (the first that could show it); null: none. */
  readonly request: number | null;
  /** Its fate at the latest request; null when it was made after it. */
  readonly fate: string | null;
  readonly text: string;
}

export interface SessionFacts {
  readonly requests: readonly { id: string; model: string | null; promptTokens: number | null }[];
  readonly compactions: readonly { id: string; trigger: string; outcome: string | null; strategy: string | null; attempts: number }[];
  readonly findings: readonly { rule: string; severity: string; count: number }[];
  readonly items: readonly IndexedItem[];
  /** The health report's row (./health-row.ts). */
  readonly health: HealthFact;
}

/** The text of blocks as search reads it: texts, reasoning, tool calls (name and input), tool results. */
function blockText(blocks: readonly Block[], out: string[]): void {
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        out.push(b.text);
        break;
      case 'reasoning':
        if (!b.redacted) out.push(b.text);
        break;
      case 'tool_call':
        out.push(`${b.name} ${b.input}`);
        break;
      case 'tool_result':
        for (const c of b.content) if (c.type === 'text' || (c.type === 'reasoning' && !c.redacted)) out.push(c.text);
        break;
      default:
        break;
    }
  }
}

/** Prompt size as the provider reported it: fresh input plus cache reads and writes. */
function promptTokens(u: { input?: number; cacheRead?: number; cacheWrite?: number } | null): number | null {
  if (!u || (u.input === undefined && u.cacheRead === undefined && u.cacheWrite === undefined)) return null;
  return (u.input ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
}

/** Loads the session (one of a database's with `session`) and reads its facts. Throws what loadSession throws. */
export async function extractSession(path: string, session?: string): Promise<SessionFacts> {
  const loaded = await loadSession(path, session === undefined ? {} : { session });
  try {
    const inspector = new SessionInspector(loaded);
    const health = await healthFact(inspector, path, session);
    const state = inspector.replay();
    const requests = state.requests.map((r) => ({ id: r.id, model: r.route.model ?? null, promptTokens: promptTokens(r.usage) }));
    const compactions = state.compactions.map((c) => ({
      id: c.id,
      trigger: c.trigger,
      outcome: c.outcome,
      strategy: c.strategy,
      attempts: Math.max(1, c.summarySeqs.length + c.summaryErrorSeqs.length),
    }));
    const byRule = new Map<string, { rule: string; severity: string; count: number }>();
    for (const d of inspector.diagnostics()) {
      const k = `${d.rule}\u0000${d.severity}`;
      const f = byRule.get(k);
      if (f) f.count++;
      else byRule.set(k, { rule: d.rule, severity: d.severity, count: 1 });
    }

    // Long texts are kept as previews in memory: the items that have one are read whole again.
    const elided: number[] = [];
    for (const rec of state.items) {
      if (rec.item.blocks.some(blockIsElided)) elided.push(rec.seq);
      for (const x of rec.extensions) if (x.blocks.some(blockIsElided)) elided.push(x.seq);
    }
    const whole = new Map<number, LogEvent>();
    if (elided.length > 0) (await loaded.hydrateMany(elided)).forEach((e, i) => whole.set(elided[i] as number, e));
    const blocksOf = (seq: number, kept: readonly Block[]): readonly Block[] => {
      const e = whole.get(seq);
      return e?.kind === 'item' ? e.item.blocks : kept;
    };

    const last = state.requests[state.requests.length - 1];
    const seqs = state.requests.map((r) => r.seq);
    const items: IndexedItem[] = [];
    for (const rec of state.items as readonly ItemRecord[]) {
      const parts: string[] = [];
      blockText(blocksOf(rec.seq, rec.item.blocks), parts);
      for (const x of rec.extensions) blockText(blocksOf(x.seq, x.blocks), parts);
      const text = parts.join('\n');
      if (text.trim() === '') continue;
      const first = firstAfter(seqs, rec.seq);
      items.push({
        index: rec.index,
        id: rec.id,
        seq: rec.seq,
        role: rec.item.role,
        kind: itemKind(rec.item),
        request: first,
        fate: last && rec.seq < last.seq ? (fateAt(rec, last.seq)?.fate ?? null) : null,
        text,
      });
    }
    return { requests, compactions, findings: [...byRule.values()], items, health };
  } finally {
    await loaded.dispose();
  }
}

/** The index of the first seq in ascending `seqs` greater than `seq`, or null. */
function firstAfter(seqs: readonly number[], seq: number): number | null {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((seqs[mid] as number) > seq) hi = mid;
    else lo = mid + 1;
  }
  return lo < seqs.length ? lo : null;
}
