import { createHash } from 'node:crypto';
import type { Block } from '../../shared/model/content';
import type { LogEvent } from '../../shared/model/event';
import { eventsOfKind } from '../../shared/model/event-log';
import { itemKind } from '../../shared/model/item';
import type { ReplayState } from '../../shared/replay/fold';
import { CATEGORY_COUNT, CATEGORY_INDEX, TOKEN_CATEGORIES, type TextPart, type TokenCategory } from '../../shared/tokens/categories';
import { chooseEncoding, type EncodingChoice, type EncodingName } from '../../shared/tokens/encoding';
import type { EnvelopeFit } from '../../shared/tokens/envelope';
import { defaultPolicyFor, policyFromLog, policyLines, type PolicyLines, type TokenPolicy } from '../../shared/tokens/policy';
import { runToEnd } from '../../shared/steps';
import { totalsInOrder } from '../../shared/tokens/pass';
import { comparePrefix, type PrefixAnalysis } from '../../shared/tokens/prefix';
import { reportSteps, type SessionTokenReport } from '../../shared/tokens/report';
import {
  addAt,
  refParts,
  TokenAccountant,
  type CountSource,
  type RefCount,
  type RefSpec,
  type RequestTokens,
} from '../../shared/tokens/units';
import type { SessionInspector } from '../session/inspector';
import { ContentCountCache } from './cache';
import { addStats, newStats, type CountStats } from './encoder';
import type { TokenCounter } from './pool';

/** Characters per token assumed before anything is counted (English prose and code with o200k: 3.5–4.5). */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** Counted characters of a category before its own ratio replaces the session's. */
const CALIBRATION_CHARS = 20_000;

export interface SessionTokensOptions {
  /** Counts batches (a worker pool, or inline). null: estimates only, nothing is counted. */
  readonly counter: TokenCounter | null;
  /** Shared between sessions (by content hash); a private one when absent. */
  readonly cache?: ContentCountCache;
  /** Count with this encoding instead of the one chosen for the session's model. */
  readonly encoding?: EncodingName;
  readonly branch?: string;
  /** Characters of text per batch sent to a counting thread (default 256k). */
  readonly batchChars?: number;
  /** Events with elided texts re-read from the source in one batch (default 1,024). */
  readonly hydrateBatch?: number;
}

export interface CountProgress {
  /** Refs (countable texts of the log) done out of those this run needs. */
  readonly refs: number;
  readonly totalRefs: number;
  /** Characters done out of those this run needs. */
  readonly chars: number;
  readonly totalChars: number;
}

export interface CountRunStats {
  /** Refs this run was asked for, and how many were already counted. */
  readonly refs: number;
  readonly known: number;
  /** Refs whose every text was found in the content cache. */
  readonly fromCache: number;
  /** Texts sent to the counter, and their characters. */
  readonly texts: number;
  readonly chars: number;
  /** Events re-read from the source because their text is elided in memory. */
  readonly hydrated: number;
  readonly batches: number;
  readonly wallMs: number;
  /** Sum over batches of the counting threads' time. */
  readonly countMs: number;
  readonly encoder: CountStats;
}

/** One position of a view with its tokens, for the detailed account. */
export interface UnitAccount {
  readonly position: number;
  readonly label: string;
  readonly kind: string;
  readonly rendition: 'verbatim' | 'masked' | null;
  readonly tokens: number;
  readonly estimated: number;
  readonly categories: Partial<Record<TokenCategory, number>>;
  /** The log does not say what the model saw here. */
  readonly unknown: boolean;
}

export interface ViewAccount {
  readonly index: number;
  readonly encoding: EncodingChoice;
  readonly tokens: RequestTokens;
  readonly units: readonly UnitAccount[];
  readonly lines: PolicyLines;
  readonly cache: PrefixAnalysis;
}

interface RefWork {
  readonly spec: RefSpec;
  readonly cats: Float64Array;
  remaining: number;
  estimated: number;
  texts: string[] | null;
  /**
   * Other runs waiting for this ref (they found it in flight), told when it is recorded or its run
   * ends without recording it. Nearly always none: a promise per ref would be made for nothing.
   */
  waiters: (() => void)[] | null;
  /** The refs its run started and has not finished; the ref leaves it when settled. */
  readonly open: Set<RefWork>;
}

/** Resolves when `w` is recorded, or when its run ends without recording it. */
function settledOf(w: RefWork): Promise<void> {
  return new Promise<void>((resolve) => (w.waiters ??= []).push(resolve));
}

function settle(w: RefWork): void {
  w.open.delete(w);
  const waiters = w.waiters;
  w.waiters = null;
  if (waiters) for (const tell of waiters) tell();
}

/** The blocks of a ref in its event re-read whole, or null when the event is not what the ref expects. */
function refBlocks(spec: RefSpec, e: LogEvent): readonly Block[] | null {
  switch (spec.kind) {
    case 'blocks':
      return e.kind === 'item' ? e.item.blocks : null;
    case 'mask':
      return e.kind === 'mask' ? (e.reference ?? null) : null;
    case 'system':
      return e.kind === 'header' ? (e.system ?? null) : null;
    default:
      return spec.blocks;
  }
}

/** Refs a counting run goes through between two turns of the event loop. */
const REFS_PER_TURN = 5_000;

const categoryOf = (i: number): TokenCategory => TOKEN_CATEGORIES[i] as TokenCategory;

/**
 * The token account of one loaded session, on one branch: per-ref counts (each event's texts,
 * counted once, by content hash across sessions), figures for any request at once (counted where
 * known, estimated from characters elsewhere, labelled), and the background count that refines
 * them. The owner keeps the counter and closes it.
 */
export class SessionTokens implements CountSource {
  readonly encoding: EncodingName;
  readonly choice: EncodingChoice;
  readonly branch: string;
  readonly state: ReplayState;
  readonly accountant: TokenAccountant;
  private readonly counts = new Map<number, RefCount>();
  /** Refs a run is counting now: another run waits for them instead of counting them twice. */
  private readonly inFlight = new Map<number, RefWork>();
  private readonly fingerprints = new Map<number, string>();
  private readonly cache: ContentCountCache;
  private readonly calibration = { chars: new Float64Array(CATEGORY_COUNT), tokens: new Float64Array(CATEGORY_COUNT) };
  private report_: { policy: TokenPolicy; version: number; report: SessionTokenReport } | null = null;
  private version = 0;
  /** See `epoch`. */
  private epoch_ = 0;
  /** charsPerToken by category index at the current epoch (0: not worked out yet). */
  private readonly perToken = new Float64Array(CATEGORY_COUNT);

  constructor(
    readonly inspector: SessionInspector,
    private readonly options: SessionTokensOptions,
  ) {
    this.branch = options.branch ?? inspector.defaultBranch;
    this.state = inspector.replay(this.branch);
    this.choice = SessionTokens.chooseFor(this.state, options.encoding);
    this.encoding = this.choice.encoding;
    this.cache = options.cache ?? new ContentCountCache();
    this.accountant = new TokenAccountant(this.state, this);
  }

  /** The encoding of a session: the one of the model most of its agent requests went to. */
  static chooseFor(state: ReplayState, forced?: EncodingName): EncodingChoice {
    const votes = new Map<string, { n: number; route: { provider?: string; model?: string } }>();
    for (const r of state.requests) {
      const key = `${r.route.provider ?? ''}/${r.route.model ?? ''}`;
      const v = votes.get(key) ?? { n: 0, route: r.route };
      v.n += r.purpose === 'agent' ? 2 : 1;
      votes.set(key, v);
    }
    let best: { provider?: string; model?: string } = state.envelope.route;
    let n = -1;
    for (const v of votes.values())
      if (v.n > n) {
        n = v.n;
        best = v.route;
      }
    const auto = chooseEncoding(best);
    if (!forced || forced === auto.encoding) return auto;
    return {
      encoding: forced,
      exact: false,
      family: auto.family,
      note: `${forced} as asked (the model's own choice would be ${auto.encoding})`,
    };
  }

  // ---- CountSource

  get(ref: number): RefCount | undefined {
    return this.counts.get(ref);
  }

  /** See CountSource.epoch: moves with every count and every calibration. */
  get epoch(): number {
    return this.epoch_;
  }

  charsPerToken(category: TokenCategory): number {
    const i = CATEGORY_INDEX[category];
    let v = this.perToken[i] as number;
    if (v === 0) {
      v = this.workOutCharsPerToken(i);
      this.perToken[i] = v;
    }
    return v;
  }

  private workOutCharsPerToken(i: number): number {
    const c = this.calibration.chars[i] as number;
    if (c >= CALIBRATION_CHARS) return c / Math.max(1, this.calibration.tokens[i] as number);
    let chars = 0;
    let tokens = 0;
    for (let j = 0; j < CATEGORY_COUNT; j++) {
      chars += this.calibration.chars[j] as number;
      tokens += this.calibration.tokens[j] as number;
    }
    return chars >= CALIBRATION_CHARS ? chars / Math.max(1, tokens) : DEFAULT_CHARS_PER_TOKEN;
  }

  fingerprint(ref: number): string | undefined {
    return this.fingerprints.get(ref);
  }

  // ---- Figures, at once

  /** Refs counted so far. */
  get countedRefs(): number {
    return this.counts.size;
  }

  /** The figures of request `index` now: counted where known, estimated elsewhere (`estimated` says how much). */
  request(index: number): RequestTokens | null {
    return this.accountant.tokensOf(index);
  }

  /** The detailed account of one view: every position with its tokens, the policy's lines, the prefix shared with the previous request. */
  view(index: number, policy: TokenPolicy = this.defaultPolicy()): ViewAccount | null {
    const t = this.accountant.tokensOf(index);
    if (!t) return null;
    let prev: RequestTokens | null = null;
    for (let i = index - 1; i >= 0; i--) {
      const r = this.state.requests[i];
      if (r && r.route.model === t.request.route.model) {
        prev = this.accountant.tokensOf(i);
        break;
      }
    }
    const units: UnitAccount[] = t.units.map((u, position) => {
      const ut = this.accountant.unitTokens(u);
      const categories: Partial<Record<TokenCategory, number>> = {};
      for (let j = 0; j < ut.cats.length; j += 2) categories[categoryOf(ut.cats[j] as number)] = ut.cats[j + 1] as number;
      return {
        position,
        label: u.label,
        kind: u.rec ? itemKind(u.rec.item) : u.kind,
        rendition: u.rec ? (u.masked ? 'masked' : 'verbatim') : null,
        tokens: ut.total,
        estimated: ut.estimated,
        categories,
        unknown: u.unknown,
      };
    });
    // The report's analysis, when it is current, also accounts for the measured unlogged envelope.
    const fresh =
      this.report_ && this.report_.version === this.version ? this.report_.report.requests.find((r) => r.index === index) : undefined;
    return {
      index,
      encoding: this.choice,
      tokens: t,
      units,
      lines: policyLines(policy, t.request.route.window),
      cache: fresh?.cache ?? comparePrefix(prev, t),
    };
  }

  /** The policy this log's harness runs: the one its compactions recorded, else the preset for its format (or its declared harness). */
  defaultPolicy(): TokenPolicy {
    return this.loggedPolicy() ?? defaultPolicyFor(this.harness());
  }

  /** The harness that wrote the log: the format, or for Palimpsest v1 the harness its session event names. */
  private harness(): string {
    const format = this.inspector.session.format;
    if (format !== 'palimpsest') return format;
    for (const e of eventsOfKind(this.inspector.session.events, 'session')) return e.harness || format;
    return format;
  }

  /** The policy the log's own compactions recorded (with a trigger), if any did. */
  loggedPolicy(): TokenPolicy | null {
    const fallback = defaultPolicyFor(this.harness());
    for (const c of this.state.compactions) {
      const p = c.policy ? policyFromLog(c.policy, fallback) : null;
      if (p) return p;
    }
    return null;
  }

  /**
   * Every request's local count (the report's `estimatedTokens`) without the rest of the report:
   * `inspect --json` needs only these, and the prompt-cache analysis, envelope fit and policy
   * cost more than the counts on long sessions.
   */
  requestTotals(): number[] {
    return totalsInOrder(this.accountant).map((t) => Math.round(t));
  }

  /** Every request with its figures, prompt-cache analysis, the envelope fit and the policy's verdicts. */
  report(policy: TokenPolicy = this.defaultPolicy()): SessionTokenReport {
    return runToEnd(this.reportSteps(policy));
  }

  /** report() in steps (see reportSteps in src/shared/tokens/report.ts), for a caller that must stay responsive. */
  *reportSteps(policy: TokenPolicy = this.defaultPolicy()): Generator<void, SessionTokenReport, void> {
    const cached = this.report_;
    if (cached && cached.policy === policy && cached.version === this.version) return cached.report;
    const version = this.version;
    const report = yield* reportSteps(this.accountant, this.choice, policy);
    this.report_ = { policy, version, report };
    return report;
  }

  /** The measured unlogged envelope, from the last report (null before one, or without usage). */
  get envelopeFit(): EnvelopeFit | null {
    return this.report_?.report.fit ?? null;
  }

  // ---- Counting, in the background

  /** Counts every ref any request of the branch can see (each once), refining every figure. */
  countAll(opts: { signal?: AbortSignal; onProgress?: (p: CountProgress) => void } = {}): Promise<CountRunStats> {
    return this.countRefs(this.accountant.allRefs(), opts);
  }

  /** Counts what request `index` needs, so that its view is exact without counting the session. */
  countRequest(index: number, opts: { signal?: AbortSignal; onProgress?: (p: CountProgress) => void } = {}): Promise<CountRunStats> {
    return this.countRefs(this.accountant.refsOf(index), opts);
  }

  /**
   * The whole blocks of refs whose texts are elided, re-read together (lines close in the file in
   * one read); null for a ref whose event cannot be re-read, which is then estimated.
   */
  private async fullBlocks(specs: readonly RefSpec[]): Promise<(readonly Block[] | null)[]> {
    const session = this.inspector.session;
    const events = await session.hydrateMany(specs.map((s) => s.seq)).catch(() => null);
    if (events) return specs.map((s, i) => refBlocks(s, events[i] as LogEvent));
    // The batch failed as a whole (a seq the log does not have): each ref on its own.
    return Promise.all(
      specs.map((s) =>
        session.hydrate(s.seq).then(
          (e) => refBlocks(s, e),
          () => null,
        ),
      ),
    );
  }

  private finish(w: RefWork): void {
    const cats: number[] = [];
    let total = 0;
    for (let i = 0; i < CATEGORY_COUNT; i++) {
      const t = w.cats[i] as number;
      if (t > 0) {
        cats.push(i, t);
        total += t;
      }
    }
    this.counts.set(w.spec.ref, { cats, total, estimated: w.estimated });
    this.inFlight.delete(w.spec.ref);
    settle(w);
    if (w.texts) {
      const h = createHash('sha1');
      for (const t of w.texts) h.update(t).update('\u0000');
      this.fingerprints.set(w.spec.ref, h.digest('base64'));
    }
    this.version++;
    this.moved();
  }

  /** Counts or calibration changed: estimates worked out before are stale. */
  private moved(): void {
    this.epoch_++;
    this.perToken.fill(0);
  }

  private calibrate(category: TokenCategory, chars: number, tokens: number, estimated: number): void {
    if (estimated > 0) return;
    const i = CATEGORY_INDEX[category];
    addAt(this.calibration.chars, i, chars);
    addAt(this.calibration.tokens, i, tokens);
    this.moved();
  }

  /**
   * Counts `refs` that are not counted yet: re-reads elided texts from the source, looks every text
   * up in the content cache, sends the rest to the counter in batches (at most two per counting
   * thread in flight, so memory stays bounded), and records each ref once all its texts are back.
   */
  async countRefs(
    refs: readonly RefSpec[],
    opts: { signal?: AbortSignal; onProgress?: (p: CountProgress) => void } = {},
  ): Promise<CountRunStats> {
    const t0 = performance.now();
    const counter = this.options.counter;
    const signal = opts.signal;
    const todo = refs.filter((r) => !this.counts.has(r.ref));
    const known = refs.length - todo.length;
    let totalChars = 0;
    for (const r of todo) for (let i = 1; i < r.chars.length; i += 2) totalChars += r.chars[i] as number;
    const run = { refs: 0, chars: 0, fromCache: 0, texts: 0, textChars: 0, hydrated: 0, batches: 0, countMs: 0, encoder: newStats() };
    const progress = (): void => opts.onProgress?.({ refs: run.refs, totalRefs: todo.length, chars: run.chars, totalChars });
    if (!counter || todo.length === 0) {
      progress();
      return {
        refs: refs.length,
        known,
        fromCache: 0,
        texts: 0,
        chars: 0,
        hydrated: 0,
        batches: 0,
        wallMs: performance.now() - t0,
        countMs: 0,
        encoder: run.encoder,
      };
    }
    const batchChars = Math.max(1024, this.options.batchChars ?? 256 * 1024);
    const hydrateBatch = Math.max(1, this.options.hydrateBatch ?? 1024);
    const inFlightLimit = Math.max(2, counter.threads * 2);
    const inFlight = new Set<Promise<void>>();
    /** Refs this run started and has not recorded yet, and the ones it found another run counting. */
    const open = new Set<RefWork>();
    const elsewhere: Promise<void>[] = [];
    let failure: unknown = null;
    // Texts waiting for a count, by content key: the same text is counted once per run.
    let waiting = new Map<string, { text: string; owners: { w: RefWork; cat: number }[] }>();
    let waitingChars = 0;

    const done = (w: RefWork, cat: number, tokens: number, estimated: number, chars: number): void => {
      addAt(w.cats, cat, tokens);
      w.estimated += estimated;
      this.calibrate(categoryOf(cat), chars, tokens, estimated);
      if (--w.remaining === 0) {
        this.finish(w);
        run.refs++;
      }
    };

    const flush = async (): Promise<void> => {
      if (waiting.size === 0) return;
      const batch = waiting;
      waiting = new Map();
      waitingChars = 0;
      const keys = [...batch.keys()];
      const texts = keys.map((k) => (batch.get(k) as { text: string }).text);
      run.batches++;
      run.texts += texts.length;
      for (const t of texts) run.textChars += t.length;
      const p = counter.count(this.encoding, texts, signal).then(
        (res) => {
          run.countMs += res.ms;
          addStats(run.encoder, res.stats);
          keys.forEach((k, i) => {
            const entry = batch.get(k) as { text: string; owners: { w: RefWork; cat: number }[] };
            const tokens = res.tokens[i] as number;
            const estimated = res.estimated[i] as number;
            this.cache.set(k, tokens, estimated);
            run.chars += entry.text.length * entry.owners.length;
            for (const o of entry.owners) done(o.w, o.cat, tokens, estimated, entry.text.length);
          });
          progress();
        },
        (e: unknown) => {
          failure ??= e;
        },
      );
      const tracked = p.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      while (inFlight.size >= inFlightLimit) await Promise.race(inFlight);
    };

    /** Looks a ref's texts up and queues the rest; true when the queue is due to be sent. */
    const enqueue = (w: RefWork, parts: readonly TextPart[]): boolean => {
      const own: { part: TextPart; key: string }[] = [];
      for (const part of parts) own.push({ part, key: ContentCountCache.key(this.encoding, part.text) });
      w.remaining = own.length;
      if (own.length === 0) {
        this.finish(w);
        run.refs++;
        return false;
      }
      let cachedAll = true;
      for (const { part, key } of own) {
        const cat = CATEGORY_INDEX[part.category];
        if (!part.complete) {
          // The full text could not be re-read: estimate it from its length, and say so.
          const t = Math.ceil(part.chars / this.charsPerToken(part.category));
          run.chars += part.chars;
          done(w, cat, t, t, part.chars);
          continue;
        }
        const hit = this.cache.get(key);
        if (hit) {
          run.chars += part.text.length;
          done(w, cat, hit.tokens, hit.estimated, part.text.length);
          continue;
        }
        cachedAll = false;
        const entry = waiting.get(key);
        if (entry) entry.owners.push({ w, cat });
        else {
          waiting.set(key, { text: part.text, owners: [{ w, cat }] });
          waitingChars += part.text.length;
        }
      }
      if (cachedAll) run.fromCache++;
      return waitingChars >= batchChars || waiting.size >= 4096;
    };

    /** Starts counting one ref, with its whole blocks when its texts are elided; true as for enqueue. */
    const begin = (spec: RefSpec, whole: readonly Block[] | null): boolean => {
      if (this.counts.has(spec.ref)) return false;
      const other = this.inFlight.get(spec.ref);
      if (other) {
        elsewhere.push(settledOf(other));
        return false;
      }
      if (spec.elided) run.hydrated++;
      const parts = refParts(spec, spec.elided && whole === null ? spec.blocks : whole);
      const w: RefWork = {
        spec,
        cats: new Float64Array(CATEGORY_COUNT),
        remaining: 0,
        estimated: 0,
        texts: spec.kind === 'system' || spec.kind === 'tools' ? parts.map((p) => p.text) : null,
        waiters: null,
        open,
      };
      this.inFlight.set(spec.ref, w);
      open.add(w);
      return enqueue(w, parts);
    };

    // Refs with elided texts wait in a batch for one re-read; the others start at once.
    let elided: RefSpec[] = [];
    const beginElided = async (): Promise<void> => {
      const batch = elided;
      elided = [];
      const whole = await this.fullBlocks(batch);
      for (let i = 0; i < batch.length && failure === null; i++) {
        if (begin(batch[i] as RefSpec, whole[i] ?? null)) await flush();
      }
    };

    try {
      for (let i = 0; i < todo.length && failure === null; i++) {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('counting was cancelled');
        // Everything found in the cache sends nothing and awaits nothing: let the thread's other work in now and then.
        if (i > 0 && i % REFS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        const spec = todo[i] as RefSpec;
        if (spec.elided) {
          elided.push(spec);
          if (elided.length >= hydrateBatch) await beginElided();
        } else if (begin(spec, spec.blocks)) await flush();
      }
      if (failure === null && elided.length > 0) await beginElided();
      if (failure === null) await flush();
    } finally {
      await Promise.allSettled([...inFlight]);
      // What this run could not finish is released: waiting runs go on, the refs stay estimated.
      for (const w of [...open]) {
        if (this.inFlight.get(w.spec.ref) === w) this.inFlight.delete(w.spec.ref);
        settle(w);
      }
    }
    await Promise.all(elsewhere);
    if (failure !== null) throw failure instanceof Error ? failure : new Error(String(failure));
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('counting was cancelled');
    progress();
    return {
      refs: refs.length,
      known,
      fromCache: run.fromCache,
      texts: run.texts,
      chars: run.textChars,
      hydrated: run.hydrated,
      batches: run.batches,
      wallMs: performance.now() - t0,
      countMs: run.countMs,
      encoder: run.encoder,
    };
  }
}
