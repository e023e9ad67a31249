import type { Block } from '../../shared/model/content';
import { reportedContextTokens } from '../../shared/model/event';
import type { CompareSubject } from '../../shared/compare/compare';
import type { RunRecord } from '../../shared/rerun/record';
import { blocksText, renderItems } from '../../shared/strategies/common/render';
import type { SessionInspector } from '../session/inspector';

/*
 * Compare subjects: the compaction as the harness logged it, and each re-run. The original's text is
 * re-read in full from the session (checkpoints are elided in memory), and "what the agent saw after"
 * is the view of the first agent request after the compaction ended — the logged truth, not a rebuild.
 */

export async function originalSubject(inspector: SessionInspector, compactionId: string, branch: string): Promise<CompareSubject | null> {
  const state = inspector.replay(branch);
  const c = state.compactions.find((x) => x.id === compactionId);
  if (!c) return null;
  const parts: string[] = [];
  for (const id of c.checkpointItems) {
    const rec = state.itemById.get(id);
    if (!rec) continue;
    const e = await inspector.session.hydrate(rec.seq);
    if (e.kind === 'item') parts.push(blocksText(e.item.blocks));
  }
  if (parts.length === 0) {
    // No checkpoint on the surface: the summary text, if the log recorded one.
    for (const seq of c.summarySeqs) {
      const e = await inspector.session.hydrate(seq);
      if (e.kind === 'compaction/summary') parts.push(blocksText(e.summary as Block[]));
    }
  }
  const last = Math.max(c.endSeq ?? -1, ...c.seqs);
  const after = state.requests.find((r) => r.seq > last && r.compactionId === null) ?? null;
  const view = after ? await inspector.fullView(after.index, branch) : null;
  const viewText = view ? renderItems(view.items.map((i) => ({ id: i.id, role: i.role, blocks: i.blocks ?? [], seq: i.seq }))) : null;
  const seqs = new Set(c.seqs);
  const calls = inspector.summarizerCalls(c.id).length;
  return {
    id: 'original',
    label: `original (${c.strategy ?? inspector.session.format})`,
    outcome: c.outcome ?? 'open',
    summary: parts.length > 0 ? parts.join('\n\n') : null,
    viewText,
    tokensBefore: c.preTokens,
    tokensAfter: c.postTokens ?? (after ? reportedContextTokens(after.usage ?? undefined) : null),
    diagnostics: inspector.diagnostics(branch).filter((d) => d.seqs.some((s) => seqs.has(s))),
    costUsd: null,
    requests: calls > 0 ? calls : null,
    latencyMs: null,
  };
}

export function runSubject(run: RunRecord): CompareSubject {
  const viewText = run.view ? renderItems(run.view.items.map((i) => ({ id: i.id, role: i.role, blocks: i.blocks, seq: null }))) : null;
  const models = run.models.map((m) => String(m.label ?? `${String(m.provider)}:${String(m.model)}`)).join(' → ');
  return {
    id: run.runId,
    label: `${run.strategy}${models ? ` @ ${models}` : ''}${run.mock ? ' [mock]' : ''} #${run.repeat.index + 1}`,
    outcome: run.outcome,
    summary: run.summary,
    viewText,
    tokensBefore: run.tokens.before,
    tokensAfter: run.tokens.after,
    diagnostics: run.diagnostics,
    costUsd: run.totals.costUsd,
    requests: run.totals.requests,
    latencyMs: run.totals.latencyMs,
  };
}
