import type { Block, ToolSchema } from '../model/content';
import type { ReplayState } from '../replay/fold';
import type { ItemRecord, RequestRecord, TodoState } from '../replay/records';
import {
  addUncountable,
  CATEGORY_COUNT,
  CATEGORY_INDEX,
  FRAMING_PER_MESSAGE,
  FRAMING_PER_REQUEST,
  itemBlockParts,
  maskParts,
  noUncountable,
  systemParts,
  todoParts,
  toolsParts,
  TOKEN_CATEGORIES,
  type ItemContext,
  type TextPart,
  type TokenCategory,
  type Uncountable,
} from './categories';
import type { EncodingName } from './encoding';
import { fingerprint } from './hash';

/**
 * Refs: the countable texts of a log. Each is the content of one event as the model sees it — the
 * blocks of an item or of an extension of it, a mask reference, the system prompt or the tool
 * schemas of a header, a todo block — named by a number: the event's seq times 4 plus the sub-kind.
 * Events never change, so a ref's count never changes either (for a given encoding): counts are
 * cached by ref, and a view is a sum of cached refs.
 */
export const REF_BLOCKS = 0;
export const REF_MASK = 1;
export const REF_SYSTEM = 2;
export const REF_TOOLS = 3;

export const refKey = (seq: number, sub: number): number => seq * 4 + sub;

export type RefKind = 'blocks' | 'mask' | 'system' | 'tools' | 'todo';

export interface RefSpec {
  readonly ref: number;
  /** The event to re-read for the full text. */
  readonly seq: number;
  readonly kind: RefKind;
  /** The item the blocks belong to (category by role and derivation); null for envelope refs. */
  readonly item: ItemContext | null;
  readonly blocks: readonly Block[] | null;
  readonly tools: readonly ToolSchema[] | null;
  readonly todos: TodoState['todos'] | null;
  /** Characters of the full texts per category: pairs (category index, chars). */
  readonly chars: readonly number[];
  /** Some text is only a preview in memory: counting it needs the event re-read from the file. */
  readonly elided: boolean;
  readonly uncountable: Readonly<Uncountable>;
}

/** The texts of a ref, from its in-memory blocks or from `blocks` re-read in full. */
export function refParts(
  spec: Pick<RefSpec, 'kind' | 'item' | 'blocks' | 'tools' | 'todos'>,
  blocks: readonly Block[] | null = spec.blocks,
  out: TextPart[] = [],
  unc: Uncountable = noUncountable(),
): TextPart[] {
  switch (spec.kind) {
    case 'blocks':
      if (blocks && spec.item) itemBlockParts(spec.item, blocks, out, unc);
      break;
    case 'mask':
      if (blocks) maskParts(blocks, out, unc);
      break;
    case 'system':
      if (blocks) systemParts(blocks, out, unc);
      break;
    case 'tools':
      if (spec.tools) toolsParts(spec.tools, out);
      break;
    case 'todo':
      if (spec.todos) todoParts(spec.todos, out);
      break;
  }
  return out;
}

/** `xs[i] += v` for arrays indexed by category. */
export function addAt(xs: { [i: number]: number }, i: number, v: number): void {
  xs[i] = (xs[i] ?? 0) + v;
}

/** Shared by every spec and unit without images, opaque or redacted blocks (most of them). */
const NONE: Readonly<Uncountable> = Object.freeze(noUncountable());

function makeSpec(
  ref: number,
  seq: number,
  kind: RefKind,
  item: ItemContext | null,
  blocks: readonly Block[] | null,
  tools: readonly ToolSchema[] | null = null,
  todos: TodoState['todos'] | null = null,
): RefSpec {
  const unc = noUncountable();
  const parts = refParts({ kind, item, blocks, tools, todos }, blocks, [], unc);
  const byCat = new Array<number>(CATEGORY_COUNT).fill(0);
  let elided = false;
  for (const p of parts) {
    addAt(byCat, CATEGORY_INDEX[p.category], p.chars);
    if (!p.complete) elided = true;
  }
  const chars: number[] = [];
  byCat.forEach((c, i) => {
    if (c > 0) chars.push(i, c);
  });
  // A session has a spec per item: most have nothing uncountable and share one empty record.
  const uncountable = unc.images + unc.opaque + unc.redacted === 0 ? NONE : unc;
  return { ref, seq, kind, item, blocks, tools, todos, chars, elided, uncountable };
}

/** The item context of items without a derivation, one per role (a spec per item holds one). */
const PLAIN_CONTEXTS = new Map<string, ItemContext>();
function itemContext(rec: ItemRecord): ItemContext {
  const derivation = rec.item.derivation ?? null;
  if (derivation !== null) return { role: rec.item.role, derivation };
  let c = PLAIN_CONTEXTS.get(rec.item.role);
  if (!c) PLAIN_CONTEXTS.set(rec.item.role, (c = Object.freeze({ role: rec.item.role, derivation: null })));
  return c;
}

/** A count of one ref: tokens per category, and how many of them the encoder estimated. */
export interface RefCount {
  /** Pairs (category index, tokens). */
  readonly cats: readonly number[];
  readonly total: number;
  /** Tokens of `total` that the encoder estimated instead of counting (runs past its work cap). */
  readonly estimated: number;
}

/** Where counted refs come from (the token service in src/main), for one encoding. */
export interface CountSource {
  readonly encoding: EncodingName;
  get(ref: number): RefCount | undefined;
  /** Characters per token, to estimate what is not counted yet. */
  charsPerToken(category: TokenCategory): number;
  /**
   * Changes whenever a count or the characters-per-token calibration changes: estimates are kept
   * until it moves.
   */
  readonly epoch: number;
  /** A fingerprint of the full text of an envelope ref (system, tools), when the counter has read it. */
  fingerprint?(ref: number): string | undefined;
}

export type UnitKind = 'tools' | 'system' | 'item' | 'todo';

/** One position of a request's prefix: what the model saw there, and where its texts come from. */
export interface UnitInfo {
  /** Identity of the content at this position: equal keys, equal content. */
  readonly key: number;
  readonly kind: UnitKind;
  /** Item id, or "system", "tools", "todo". */
  readonly label: string;
  readonly rec: ItemRecord | null;
  readonly masked: boolean;
  readonly refs: readonly RefSpec[];
  readonly uncountable: Readonly<Uncountable>;
  /** The log does not say what the model saw here (unlogged envelope, masked item without recorded reference). */
  readonly unknown: boolean;
  readonly framing: number;
  /** Tokens, kept once every ref is counted (they cannot change after that). */
  counted: UnitTokens | null;
  /** The last estimate, valid while the count source's epoch is `estimateEpoch`. */
  estimate: UnitTokens | null;
  estimateEpoch: number;
}

export interface UnitTokens {
  readonly total: number;
  /** Tokens estimated from characters (not counted yet) or by the encoder's work cap. */
  readonly estimated: number;
  /** Pairs (category index, tokens); framing included. */
  readonly cats: readonly number[];
}

export interface RequestTokens {
  readonly index: number;
  readonly request: RequestRecord;
  readonly units: readonly UnitInfo[];
  readonly unitTokens: Float64Array;
  /** Tokens of the logged content plus estimated framing. */
  readonly total: number;
  /** Part of `total` estimated from characters or capped by the encoder: 0 once everything is counted. */
  readonly estimated: number;
  /** Per category (TOKEN_CATEGORIES order); sums to `total`. */
  readonly byCategory: Float64Array;
  readonly uncountable: Uncountable;
  /** The system prompt / tools were sent but the log does not record them (Claude Code). */
  readonly unloggedSystem: boolean;
  readonly unloggedTools: boolean;
  /** Masked items whose reference text is not recorded. */
  readonly maskedUnknown: number;
  /** No unit appears twice: true for a view of the surface; a summarizer call's input may list an item twice. */
  readonly distinct: boolean;
}

const ITEM_KEY_SPAN = 65536;

/**
 * Turns the replay of one branch into per-request token figures from a count source: exact where
 * refs are counted, estimated from characters elsewhere. Units are cached by identity, so the
 * figures of a view after a seek are a sum over cached units.
 */
export class TokenAccountant {
  private readonly specs = new Map<number, RefSpec>();
  /** Envelope and todo units, by key. */
  private readonly units = new Map<number, UnitInfo>();
  /**
   * Item units by record index (each record has a few variants: extensions seen, masks). An array
   * sized once: a Map of hundreds of thousands of units would rehash while a user seeks.
   */
  private readonly itemUnits: (UnitInfo[] | undefined)[];
  private readonly envelopeKeys = new Map<string, number>();
  private readonly fingerprints = new Map<number, string>();

  constructor(
    readonly state: ReplayState,
    readonly source: CountSource,
  ) {
    this.itemUnits = new Array<UnitInfo[] | undefined>(state.items.length);
  }

  private spec(ref: number, make: () => RefSpec): RefSpec {
    let s = this.specs.get(ref);
    if (!s) {
      s = make();
      this.specs.set(ref, s);
    }
    return s;
  }

  /** The ref of an item's creating event or of one of its extensions. */
  itemRef(rec: ItemRecord, seq: number): RefSpec {
    return this.spec(refKey(seq, REF_BLOCKS), () => {
      const blocks = seq === rec.seq ? rec.item.blocks : (rec.extensions.find((x) => x.seq === seq)?.blocks ?? []);
      return makeSpec(refKey(seq, REF_BLOCKS), seq, 'blocks', itemContext(rec), blocks);
    });
  }

  private maskRef(seq: number, reference: readonly Block[]): RefSpec {
    return this.spec(refKey(seq, REF_MASK), () => makeSpec(refKey(seq, REF_MASK), seq, 'mask', null, reference));
  }

  private systemRef(seq: number, blocks: readonly Block[]): RefSpec {
    return this.spec(refKey(seq, REF_SYSTEM), () => makeSpec(refKey(seq, REF_SYSTEM), seq, 'system', null, blocks));
  }

  private toolsRef(seq: number, tools: readonly ToolSchema[]): RefSpec {
    return this.spec(refKey(seq, REF_TOOLS), () => makeSpec(refKey(seq, REF_TOOLS), seq, 'tools', null, null, tools));
  }

  private todoRef(todo: TodoState): RefSpec {
    return this.spec(refKey(todo.seq, REF_BLOCKS), () =>
      makeSpec(refKey(todo.seq, REF_BLOCKS), todo.seq, 'todo', null, null, null, todo.todos),
    );
  }

  /** Envelope content keys: equal content, equal key, whichever header event carried it. */
  private envelopeKey(kind: 'system' | 'tools', identity: string): number {
    const k = `${kind}:${identity}`;
    let n = this.envelopeKeys.get(k);
    if (n === undefined) {
      n = -(this.envelopeKeys.size + 1);
      this.envelopeKeys.set(k, n);
    }
    return n;
  }

  /** The unit of a header's system prompt or tools (shared by every request with the same content). */
  envelopeUnit(kind: 'system' | 'tools', seq: number | null, value: readonly Block[] | readonly ToolSchema[] | null): UnitInfo {
    let identity: string;
    let spec: RefSpec | null = null;
    if (value === null || seq === null) identity = 'unlogged';
    else {
      spec = kind === 'system' ? this.systemRef(seq, value as readonly Block[]) : this.toolsRef(seq, value as readonly ToolSchema[]);
      let full = this.fingerprints.get(spec.ref);
      if (full === undefined) {
        full = !spec.elided ? fingerprint(JSON.stringify(value)) : this.source.fingerprint?.(spec.ref);
        if (full !== undefined) this.fingerprints.set(spec.ref, full);
      }
      identity = full ?? `seq:${seq}`;
    }
    const key = this.envelopeKey(kind, identity);
    let u = this.units.get(key);
    if (!u) {
      u = {
        key,
        kind,
        label: kind,
        rec: null,
        masked: false,
        refs: spec ? [spec] : [],
        uncountable: spec?.uncountable ?? NONE,
        unknown: spec === null,
        framing: kind === 'system' && spec ? FRAMING_PER_MESSAGE : 0,
        counted: null,
        estimate: null,
        estimateEpoch: -1,
      };
      this.units.set(key, u);
    }
    return u;
  }

  /** The unit an item shows just before `beforeSeq`: as masked, or with the extensions logged by then. */
  itemUnit(rec: ItemRecord, masked: boolean, beforeSeq: number): UnitInfo {
    let variant: number;
    let maskAt = -1;
    if (masked) {
      for (let i = 0; i < rec.maskReferences.length; i++) if ((rec.maskReferences[i] as { seq: number }).seq < beforeSeq) maskAt = i;
      variant = ITEM_KEY_SPAN / 2 + Math.max(0, maskAt + 1);
    } else {
      let ext = 0;
      for (const x of rec.extensions) if (x.seq < beforeSeq) ext++;
      variant = ext;
    }
    const key = rec.index * ITEM_KEY_SPAN + Math.min(variant, ITEM_KEY_SPAN - 1);
    let variants = this.itemUnits[rec.index];
    if (variants) for (const v of variants) if (v.key === key) return v;
    const refs: RefSpec[] = [];
    let unknown = false;
    if (masked) {
      const m = maskAt >= 0 ? rec.maskReferences[maskAt] : undefined;
      if (m && m.reference) refs.push(this.maskRef(m.seq, m.reference));
      else unknown = true;
    } else {
      refs.push(this.itemRef(rec, rec.seq));
      for (const x of rec.extensions) if (x.seq < beforeSeq) refs.push(this.itemRef(rec, x.seq));
    }
    let unc: Readonly<Uncountable> = NONE;
    for (const r of refs) {
      if (r.uncountable.images + r.uncountable.opaque + r.uncountable.redacted === 0) continue;
      if (unc === NONE) unc = noUncountable();
      addUncountable(unc as Uncountable, r.uncountable);
    }
    const u: UnitInfo = {
      key,
      kind: 'item',
      label: rec.id,
      rec,
      masked,
      refs,
      uncountable: unc,
      unknown,
      framing: FRAMING_PER_MESSAGE,
      counted: null,
      estimate: null,
      estimateEpoch: -1,
    };
    if (!variants) {
      variants = [];
      this.itemUnits[rec.index] = variants;
    }
    variants.push(u);
    return u;
  }

  /** The unit of a todo block. */
  todoUnit(todo: TodoState): UnitInfo {
    const spec = this.todoRef(todo);
    const key = -(1e12 + todo.seq);
    let u = this.units.get(key);
    if (!u) {
      u = {
        key,
        kind: 'todo',
        label: 'todo',
        rec: null,
        masked: false,
        refs: [spec],
        uncountable: NONE,
        unknown: false,
        framing: FRAMING_PER_MESSAGE,
        counted: null,
        estimate: null,
        estimateEpoch: -1,
      };
      this.units.set(key, u);
    }
    return u;
  }

  /** The positions of request `index`, in prefix order: tools, system, items, todo block (a pass over every request: RequestPass). */
  unitsOf(index: number): UnitInfo[] | null {
    const r = this.state.requests[index];
    if (!r) return null;
    const units: UnitInfo[] = [];
    const env = r.envelope;
    if (env.tools !== undefined) units.push(this.envelopeUnit('tools', env.toolsSeq, env.tools));
    if (env.system !== undefined) units.push(this.envelopeUnit('system', env.systemSeq, env.system));
    if (r.input) {
      for (const id of r.input.items) {
        const rec = this.state.itemById.get(id);
        if (rec) units.push(this.itemUnit(rec, false, r.seq));
      }
    } else {
      // The surface as item indexes (surfaceBefore would also build an array of records).
      const s = this.state.surface.at(r.seq);
      const anyMasked = s.masked.size > 0;
      for (const id of s.ids) {
        const rec = this.state.items[id];
        if (rec) units.push(this.itemUnit(rec, anyMasked && s.masked.has(id), r.seq));
      }
      if (r.todo && r.todo.todos.length > 0) units.push(this.todoUnit(r.todo));
    }
    return units;
  }

  /** Tokens of one unit: cached once every ref is counted, estimated from characters otherwise. */
  unitTokens(u: UnitInfo): UnitTokens {
    if (u.counted) return u.counted;
    const epoch = this.source.epoch;
    if (u.estimate && u.estimateEpoch === epoch) return u.estimate;
    const byCat = new Float64Array(CATEGORY_COUNT);
    let estimated = 0;
    for (const spec of u.refs) {
      const c = this.source.get(spec.ref);
      if (c) {
        for (let i = 0; i < c.cats.length; i += 2) addAt(byCat, c.cats[i] as number, c.cats[i + 1] as number);
        estimated += c.estimated;
      } else {
        for (let i = 0; i < spec.chars.length; i += 2) {
          const cat = spec.chars[i] as number;
          const t = Math.ceil((spec.chars[i + 1] as number) / this.source.charsPerToken(TOKEN_CATEGORIES[cat] as TokenCategory));
          addAt(byCat, cat, t);
          estimated += t;
        }
      }
    }
    addAt(byCat, CATEGORY_INDEX.framing, u.framing);
    const cats: number[] = [];
    let total = 0;
    for (let i = 0; i < CATEGORY_COUNT; i++) {
      const t = byCat[i] as number;
      if (t > 0) {
        cats.push(i, t);
        total += t;
      }
    }
    const tokens: UnitTokens = { total, estimated, cats };
    // Figures that can no longer change are kept for good (an encoder estimate is final too);
    // estimates from characters until the count source moves on.
    if (u.refs.every((s) => this.source.get(s.ref) !== undefined)) u.counted = tokens;
    else {
      u.estimate = tokens;
      u.estimateEpoch = epoch;
    }
    return tokens;
  }

  /** The token figures of request `index`. */
  tokensOf(index: number): RequestTokens | null {
    const units = this.unitsOf(index);
    const r = this.state.requests[index];
    if (!units || !r) return null;
    const unitTokens = new Float64Array(units.length);
    const byCategory = new Float64Array(CATEGORY_COUNT);
    const uncountable = noUncountable();
    let total = FRAMING_PER_REQUEST;
    let estimated = 0;
    let maskedUnknown = 0;
    addAt(byCategory, CATEGORY_INDEX.framing, FRAMING_PER_REQUEST);
    units.forEach((u, i) => {
      const t = this.unitTokens(u);
      unitTokens[i] = t.total;
      total += t.total;
      estimated += t.estimated;
      for (let j = 0; j < t.cats.length; j += 2) addAt(byCategory, t.cats[j] as number, t.cats[j + 1] as number);
      addUncountable(uncountable, u.uncountable);
      if (u.kind === 'item' && u.unknown) maskedUnknown++;
    });
    return {
      index,
      request: r,
      units,
      unitTokens,
      total,
      estimated,
      byCategory,
      uncountable,
      unloggedSystem: r.envelope.system === null,
      unloggedTools: r.envelope.tools === null,
      maskedUnknown,
      distinct: !r.input,
    };
  }

  /** Tokens of an item with all its extensions, as it was once complete (framing included). */
  recordTokens(rec: ItemRecord): number {
    return this.unitTokens(this.itemUnit(rec, false, Number.POSITIVE_INFINITY)).total;
  }

  /** Every ref request `index` needs. */
  refsOf(index: number): RefSpec[] {
    const units = this.unitsOf(index) ?? [];
    const out: RefSpec[] = [];
    const seen = new Set<number>();
    for (const u of units)
      for (const s of u.refs)
        if (!seen.has(s.ref)) {
          seen.add(s.ref);
          out.push(s);
        }
    return out;
  }

  /** Every ref any request of the branch can see, each once, in seq order. */
  allRefs(): RefSpec[] {
    const out = new Map<number, RefSpec>();
    const add = (s: RefSpec): void => void out.set(s.ref, s);
    for (const rec of this.state.items) {
      const first = rec.fates[0]?.fate;
      if (first && first.fate === 'dropped' && first.reason === 'never-sent') continue;
      add(this.itemRef(rec, rec.seq));
      for (const x of rec.extensions) add(this.itemRef(rec, x.seq));
      for (const m of rec.maskReferences) if (m.reference) add(this.maskRef(m.seq, m.reference));
    }
    for (const r of this.state.requests) {
      const env = r.envelope;
      if (env.system && env.systemSeq !== null) add(this.systemRef(env.systemSeq, env.system));
      if (env.tools && env.toolsSeq !== null) add(this.toolsRef(env.toolsSeq, env.tools));
      if (r.todo && !r.input && r.todo.todos.length > 0) add(this.todoRef(r.todo));
    }
    return [...out.values()].sort((a, b) => a.ref - b.ref);
  }

  /** Drop cached unit figures (after the count source changed what it knows, e.g. a new encoding). */
  forget(): void {
    const clear = (u: UnitInfo): void => {
      u.counted = null;
      u.estimate = null;
    };
    for (const u of this.units.values()) clear(u);
    for (const vs of this.itemUnits) if (vs) for (const u of vs) clear(u);
    this.fingerprints.clear();
  }
}
