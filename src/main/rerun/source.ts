import type { Block } from '../../shared/model/content';
import { blockIsElided } from '../../shared/model/content';
import { reportedContextTokens } from '../../shared/model/event';
import type { ItemRecord } from '../../shared/replay/records';
import { extensionsBefore, surfaceBefore } from '../../shared/replay/view';
import type { SourceItem, SourceView } from '../../shared/strategies/types';
import type { ModelView } from '../../shared/model/view';
import { joinedView } from '../capture/joined-view';
import type { SessionInspector } from '../session/inspector';

/**
 * The exact source a re-run starts from, with every elided text re-read from the session file:
 * - a request: the model view the model saw at that request;
 * - a compaction: the surface just before the compaction's first event (what the harness compacted),
 *   under the envelope (system, tools, route) of the last agent request before it.
 * Masked items keep what the model saw instead (the recorded reference); when the log does not
 * record the reference the item is carried with no blocks and the view says so in `unknowns`.
 *
 * `joined`: the source is taken from the session joined with its captures (`--capture`), which
 * must be attached to the branch. A request target then indexes the joined list, as `view` and
 * `inspect` do with a capture, and any request the wire has — a failed summarizer attempt included —
 * starts from its body as sent; a compaction's envelope is the wire's (the system prompt and tools
 * many logs do not record).
 */
export type RerunTarget = { readonly compaction: string } | { readonly request: number };

export interface ResolvedSource {
  readonly view: SourceView;
  /** The request whose envelope the source uses (for a request target: itself). */
  readonly requestIndex: number | null;
  /** The event the source is taken just before (compaction start, or the request's seq). */
  readonly anchorSeq: number;
  readonly compactionId: string | null;
  readonly unknowns: readonly string[];
}

export type SourceResult = { readonly ok: true; readonly source: ResolvedSource } | { readonly ok: false; readonly error: string };

export interface SourceOptions {
  readonly joined?: boolean;
}

/** The views a source is read from: the log's, or the joined session's (indexes of its joined list). */
interface Views {
  readonly count: number;
  readonly what: string;
  request(index: number): Promise<ModelView | null>;
  /** The view of the log's request `logIndex`, as complete as the views allow. */
  envelope(logIndex: number): Promise<ModelView | null>;
}

function viewsOf(inspector: SessionInspector, branch: string, joined: boolean): Views | string {
  const log: Views = {
    count: inspector.replay(branch).requests.length,
    what: `branch ${branch}`,
    request: (i) => inspector.fullView(i, branch),
    envelope: (i) => inspector.fullView(i, branch),
  };
  if (!joined) return log;
  const wire = inspector.wire(branch);
  if (!wire) return `No capture is joined to branch ${branch}: the joined session is the default branch's (${inspector.defaultBranch}).`;
  return {
    count: wire.requests.length,
    what: `${branch} joined with its capture`,
    request: async (i) => {
      const j = wire.requests[i];
      return j ? joinedView(inspector, j, branch) : null;
    },
    envelope: async (i) => {
      const j = wire.requests.find((x) => x.logIndex === i);
      return j ? joinedView(inspector, j, branch) : inspector.fullView(i, branch);
    },
  };
}

export async function resolveSource(
  inspector: SessionInspector,
  target: RerunTarget,
  branch = inspector.defaultBranch,
  options: SourceOptions = {},
): Promise<SourceResult> {
  const state = inspector.replay(branch);
  const views = viewsOf(inspector, branch, options.joined === true);
  if (typeof views === 'string') return { ok: false, error: views };
  if ('request' in target) {
    const view = await views.request(target.request);
    if (!view) return { ok: false, error: `No request ${target.request} on ${views.what} (it has ${views.count}).` };
    const unknowns = [...view.unknowns];
    const items: SourceItem[] = view.items.map((it) => ({ id: it.id, role: it.role, blocks: it.blocks ?? [], seq: it.seq, meta: it.meta }));
    return {
      ok: true,
      source: {
        view: {
          system: view.system,
          tools: view.tools,
          items,
          route: view.request.route,
          reportedInputTokens: view.request.reportedInputTokens,
        },
        requestIndex: target.request,
        anchorSeq: view.request.seq,
        compactionId: view.request.compactionId,
        unknowns,
      },
    };
  }
  const c = state.compactions.find((x) => x.id === target.compaction);
  if (!c) {
    const ids = state.compactions.map((x) => x.id);
    return {
      ok: false,
      error: `No compaction "${target.compaction}" on branch ${branch}${ids.length ? `; compactions: ${ids.slice(0, 20).join(', ')}` : ' (it has none)'}.`,
    };
  }
  const anchorSeq = c.startSeq ?? c.seqs[0];
  if (anchorSeq === undefined) return { ok: false, error: `Compaction "${c.id}" has no events on branch ${branch}.` };
  // The envelope in force: the last agent request (not a summarizer call) before the compaction.
  let requestIndex: number | null = null;
  for (const r of state.requests) if (r.seq < anchorSeq && r.compactionId === null) requestIndex = r.index;
  const envelopeView = requestIndex === null ? null : await views.envelope(requestIndex);
  const unknowns: string[] = envelopeView
    ? [...envelopeView.unknowns.filter((u) => !u.startsWith('masked item'))]
    : ['system prompt and tool schemas: no agent request precedes this compaction'];
  const surface = surfaceBefore(state, anchorSeq);
  const items: SourceItem[] = [];
  for (const rec of surface.items) {
    const masked = surface.masked.has(rec.index);
    const blocks = masked ? maskedBlocks(rec, anchorSeq, unknowns) : await fullBlocks(inspector, rec, anchorSeq);
    items.push({ id: rec.id, role: rec.item.role, blocks, seq: rec.seq, meta: rec.item.meta ?? false });
  }
  const req = requestIndex === null ? null : state.requests[requestIndex];
  return {
    ok: true,
    source: {
      view: {
        system: envelopeView?.system ?? null,
        tools: envelopeView?.tools ?? null,
        items,
        route: envelopeView?.request.route ?? null,
        reportedInputTokens: c.preTokens ?? (req ? reportedContextTokens(req.usage ?? undefined) : null),
      },
      requestIndex,
      anchorSeq,
      compactionId: c.id,
      unknowns,
    },
  };
}

function maskedBlocks(rec: ItemRecord, seq: number, unknowns: string[]): readonly Block[] {
  let ref: readonly Block[] | null = null;
  for (const m of rec.maskReferences) if (m.seq < seq) ref = m.reference;
  if (ref === null) unknowns.push(`masked item ${rec.id}: the text of its reference is not recorded`);
  return ref ?? [];
}

async function fullBlocks(inspector: SessionInspector, rec: ItemRecord, seq: number): Promise<readonly Block[]> {
  const ext = extensionsBefore(rec, seq);
  const blocks = [...rec.item.blocks, ...ext.flatMap((x) => x.blocks)];
  if (!blocks.some(blockIsElided)) return blocks;
  const out: Block[] = [];
  for (const s of [rec.seq, ...ext.map((x) => x.seq)]) {
    const e = await inspector.session.hydrate(s);
    if (e.kind === 'item') out.push(...e.item.blocks);
  }
  return out;
}
