import type { Block } from '../../shared/model/content';
import { blockIsElided } from '../../shared/model/content';
import type { Diagnostic } from '../../shared/model/diagnostic';
import type { LogEvent } from '../../shared/model/event';
import { eventsBetween, eventsOfKind } from '../../shared/model/event-log';
import type { ModelView, ViewItem } from '../../shared/model/view';
import { defaultBranch, listBranches, type BranchInfo } from '../../shared/replay/branches';
import { replaySteps, type ReplayState } from '../../shared/replay/fold';
import { extensionsBefore, fatesAt, modelView, type RawItemFate } from '../../shared/replay/view';
import { diagnoseSteps, loadRuleTexts } from '../../shared/diagnostics';
import { runToEnd, type Steps } from '../../shared/steps';
import { locateDiagnostics } from './load';
import type { WireJoin } from '../../shared/model/wire-join';
import type { LoadedSession } from './types';

/**
 * Answers questions about one loaded session: its branches, requests, compactions, the model view
 * at a request, and full text on demand. Replays each branch once and keeps the result.
 */
export class SessionInspector {
  private readonly replays = new Map<string, ReplayState>();
  readonly branches: readonly BranchInfo[];
  readonly defaultBranch: string;

  constructor(readonly session: LoadedSession) {
    this.branches = listBranches(session.events);
    this.defaultBranch = defaultBranch(session.events);
  }

  replay(branch = this.defaultBranch): ReplayState {
    return runToEnd(this.replaySteps(branch));
  }

  /** replay() in steps (replaySteps in src/shared/replay/fold.ts), for a caller that must stay responsive. */
  *replaySteps(branch = this.defaultBranch): Generator<Steps, ReplayState, void> {
    let r = this.replays.get(branch);
    if (!r) {
      r = yield* replaySteps(this.session.events, { branch });
      this.replays.set(branch, r);
    }
    return r;
  }

  private summarizers: Map<string, { id: string; branch: string }[]> | null = null;

  /** Every summarizer call of a compaction, on any branch (a summarizer may be logged as its own branch). */
  summarizerCalls(compactionId: string): readonly { id: string; branch: string }[] {
    if (!this.summarizers) {
      this.summarizers = new Map();
      for (const e of eventsOfKind(this.session.events, 'request')) {
        if (!e.compactionId) continue;
        let list = this.summarizers.get(e.compactionId);
        if (!list) this.summarizers.set(e.compactionId, (list = []));
        list.push({ id: e.id, branch: e.branch ?? 'main' });
      }
    }
    return this.summarizers.get(compactionId) ?? [];
  }

  private wireJoin: { branch: string; join: WireJoin } | null = null;

  /** Lay a capture's join beside a branch (src/main/capture/attach.ts); diagnostics of that branch then read it. */
  setWire(join: WireJoin | null, branch = this.defaultBranch): void {
    this.wireJoin = join ? { branch, join } : null;
    this.findings.delete(branch);
  }

  /** The wire join of a branch, when a capture was attached to it. */
  wire(branch = this.defaultBranch): WireJoin | null {
    return this.wireJoin?.branch === branch ? this.wireJoin.join : null;
  }

  hasBranch(name: string): boolean {
    return this.branches.some((b) => b.name === name);
  }

  private readonly findings = new Map<string, Diagnostic[]>();
  private readonly ruleTexts = new Map<number, readonly Block[]>();

  /** Re-read the full text of the summaries and checkpoints the diagnostics rules read whole; diagnostics() uses them from then on. */
  async loadRuleTexts(branch = this.defaultBranch): Promise<void> {
    const texts = await loadRuleTexts(this.session.events, this.replay(branch), (seqs) => this.session.hydrateMany(seqs));
    for (const [seq, blocks] of texts) this.ruleTexts.set(seq, blocks);
    this.findings.clear();
  }

  /** Reader, importer and replay findings, then the diagnostics catalog's (docs/diagnostics.md), each with file and line. */
  diagnostics(branch = this.defaultBranch): Diagnostic[] {
    return runToEnd(this.diagnosticsSteps(branch));
  }

  /** diagnostics() in steps: the replay's, then one rule at a time (diagnoseSteps). */
  *diagnosticsSteps(branch = this.defaultBranch): Generator<Steps, Diagnostic[], void> {
    let ds = this.findings.get(branch);
    if (!ds) {
      const state = yield* this.replaySteps(branch);
      const base = [...this.session.diagnostics, ...locateDiagnostics(this.session, state.diagnostics)];
      const found = yield* diagnoseSteps({
        events: this.session.events,
        state,
        format: this.session.format,
        reported: base,
        fullBlocks: this.ruleTexts,
        wire: this.wire(branch),
      });
      ds = [...base, ...locateDiagnostics(this.session, found)];
      this.findings.set(branch, ds);
    }
    return ds;
  }

  view(index: number, branch = this.defaultBranch): ModelView | null {
    return modelView(this.replay(branch), index);
  }

  fates(index: number, branch = this.defaultBranch): RawItemFate[] {
    return fatesAt(this.replay(branch), index);
  }

  /** The view with every elided text re-read from the source. */
  async fullView(index: number, branch = this.defaultBranch): Promise<ModelView | null> {
    return (await this.fullViews([index], branch))[0] ?? null;
  }

  /**
   * fullView of several requests, their elided texts re-read in one pass over the source: joining a
   * capture compares every request, and a read per request cost more waiting than work.
   */
  async fullViews(indexes: readonly number[], branch = this.defaultBranch): Promise<(ModelView | null)[]> {
    const state = this.replay(branch);
    const views = indexes.map((i) => this.view(i, branch));
    // The events each elided item is made of (its own, then its extensions), and elided system prompts.
    const sources = views.map((view) =>
      view
        ? view.items.map((it): number[] => {
            if (!it.blocks || !it.blocks.some(blockIsElided) || it.rendition === 'masked') return [];
            const rec = state.itemById.get(it.id);
            return rec ? [rec.seq, ...extensionsBefore(rec, view.request.seq).map((x) => x.seq)] : [];
          })
        : [],
    );
    const systemSeqs = views.map((view, k) => {
      const seq = state.requests[indexes[k] as number]?.envelope.systemSeq ?? null;
      return view?.system && view.system.some(blockIsElided) ? seq : null;
    });
    const wanted = [...new Set([...sources.flat(2), ...systemSeqs.filter((x): x is number => x !== null)])];
    const whole = new Map<number, LogEvent>();
    if (wanted.length > 0) (await this.session.hydrateMany(wanted)).forEach((e, i) => whole.set(wanted[i] as number, e));
    return views.map((view, k) => {
      if (!view) return null;
      const items = view.items.map((it, i): ViewItem => {
        const seqs = sources[k]?.[i] as number[];
        if (seqs.length === 0) return it;
        const blocks: Block[] = [];
        for (const seq of seqs) {
          const e = whole.get(seq);
          // A loop, not push(...): an item has as many blocks as its line holds.
          if (e?.kind === 'item') for (const b of e.item.blocks) blocks.push(b);
        }
        return { ...it, blocks };
      });
      let system = view.system;
      const systemSeq = systemSeqs[k] ?? null;
      if (systemSeq !== null) {
        const e = whole.get(systemSeq);
        if (e?.kind === 'header' && e.system) system = e.system;
      }
      return { ...view, system, items };
    });
  }

  events(from = 0, to = this.session.events.length - 1): readonly LogEvent[] {
    return eventsBetween(this.session.events, from, to + 1);
  }
}
