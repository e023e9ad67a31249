import { type NormRequest, type NormTool, type Part, canonicalJson, describePart, joinTextRuns } from './normalize';

/*
 * One wire request against one rebuilt model view, both in the common shape of ./normalize.ts.
 * match: system, messages and tools all equal; mismatch: some part the log records differs (the
 * first difference is reported); unknown: nothing recorded differs, but the log does not reveal
 * some part (the system prompt, tools, a masked item, an instruction, what a client adds to the
 * messages by its own rules) — never counted as a match.
 */

/** How one part of a request (system, messages, tools) compares. */
export interface SubResult {
  readonly status: 'match' | 'mismatch' | 'unknown';
  /** Index of the first differing part (or tool). */
  readonly index?: number;
  readonly wire?: string;
  readonly view?: string;
  readonly why?: string;
  /** Parts that differ position by position, of how many (a shifted list differs everywhere after the shift). */
  readonly differing?: number;
  readonly of?: number;
}

/**
 * A part's canonical JSON, computed once per part object: pairing a capture with a long session
 * compares the same parts many times (each wire request against several logged ones).
 */
const keys = new WeakMap<Part, string>();
export function partKey(p: Part): string {
  let k = keys.get(p);
  if (k === undefined) keys.set(p, (k = canonicalJson(p)));
  return k;
}

const same = (a: Part, b: Part): boolean => a === b || partKey(a) === partKey(b);

/** For two texts of the same role and kind: where they first differ, with a little context on each side. */
function textDiff(w: Part | undefined, v: Part | undefined): { wire: string; view: string } | null {
  const text = (p: Part | undefined): string | null =>
    p?.type === 'text' || p?.type === 'reasoning' ? p.text : p?.type === 'tool_result' ? p.content : null;
  const a = text(w);
  const b = text(v);
  if (a === null || b === null || !w || !v || w.type !== v.type || w.role !== v.role) return null;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const ctx = (t: string): string => JSON.stringify(t.slice(Math.max(0, i - 40), i + 60));
  const kind = `${w.role} ${w.type}`;
  return { wire: `${kind} (${a.length} chars) at char ${i}: ${ctx(a)}`, view: `${kind} (${b.length} chars) at char ${i}: ${ctx(b)}` };
}

/**
 * Compare two part lists: match, or the first place where they differ; `unknown` parts on the view
 * side make it unknown. An unknown part stands for the wire part in its place; one that spans
 * (`span: 'any'`, what a client adds by rules the log does not hold) stands for the wire's user and
 * system texts up to the first that agrees with the next view part, and for the start of that text
 * when the view's text is its end after a blank line; one with `maybe` stands for that part (a
 * tool result: any result for its call) or for nothing; one with `span: 'history'` for the view's
 * parts after it as they are, or for any wire parts in place of those before a user turn (see
 * replacedHistory). The parts after it are compared in place from there: a real difference among
 * them is still a mismatch.
 */
export function compareParts(wire: readonly Part[], view: readonly Part[]): SubResult {
  return walk(wire, view, 0, 0, null, []);
}

/** The comparison from wire part `i` and view part `j` on, with the unknowns met so far. */
function walk(
  wire: readonly Part[],
  view: readonly Part[],
  i: number,
  j: number,
  firstUnknown: { index: number; why: string } | null,
  named: readonly string[],
): SubResult {
  let unknownAt = firstUnknown;
  // What a client adds or may leave out is named whole: every such unknown's reason, each once.
  const spans = [...named];
  while (i < wire.length || j < view.length) {
    const w = wire[i];
    const v = view[j];
    if (v?.type === 'unknown') {
      unknownAt ??= { index: i, why: v.why };
      if (v.why !== unknownAt.why && !spans.includes(v.why) && (v.maybe || v.span || v.named)) spans.push(v.why);
      if (v.span === 'history') return replacedHistory(wire, view, i, j, unknownAt, spans);
      if (v.maybe) {
        // A part the client may have left out: the wire part when it is that part, else nothing.
        if (w && standsFor(w, v.maybe)) i++;
        j++;
        continue;
      }
      if (v.span !== 'any') {
        i++;
        j++;
        continue;
      }
      const at = spanEnd(wire, i, view[j + 1]);
      if (at === null) return mismatchAt(wire, view, i, j + 1);
      i = at.next;
      j += at.tail ? 2 : 1;
      continue;
    }
    if (!w || !v || !same(w, v)) return mismatchAt(wire, view, i, j);
    i++;
    j++;
  }
  if (unknownAt !== null) return { status: 'unknown', index: unknownAt.index, why: [unknownAt.why, ...spans].join('; ') };
  return { status: 'match' };
}

/**
 * A history the client may have replaced (view part `j`, `span: 'history'`), from wire part `i`:
 * the view's parts after it as they are (the end of the wire's text at `i` after a blank line for
 * the first, as a spanning unknown allows), or any wire parts followed by the view's parts from a
 * kept start on (keptStarts), whose first part is found in place on the wire. The first alternative
 * that does not differ wins; when every one differs, the one with the fewest parts differing in
 * place is reported (the view whole when none has fewer).
 */
function replacedHistory(
  wire: readonly Part[],
  view: readonly Part[],
  i: number,
  j: number,
  at: { index: number; why: string },
  spans: readonly string[],
): SubResult {
  const whole = walk(wire, view, i, j + 1, at, spans);
  if (whole.status !== 'mismatch') return whole;
  // When every alternative differs, the one with the fewest parts differing in place says where.
  let best = whole;
  const tried = (r: SubResult): boolean => {
    if (r.status !== 'mismatch') return true;
    if ((r.differing ?? Infinity) < (best.differing ?? Infinity)) best = r;
    return false;
  };
  const first = view[j + 1];
  const w = wire[i];
  if (first?.type === 'text' && w?.type === 'text' && w.role === first.role && w.text.endsWith(`\n\n${first.text}`)) {
    const r = walk(wire, view, i + 1, j + 2, at, spans);
    if (tried(r)) return r;
  }
  // Where each wire part is, from `i` on (a kept start is looked up, not searched for).
  const where = new Map<string, number[]>();
  for (let k = i; k < wire.length; k++) {
    const key = partKey(wire[k] as Part);
    const list = where.get(key);
    if (list) list.push(k);
    else where.set(key, [k]);
  }
  const starts = keptStarts(view, j + 2);
  // Every kept tail ends with the view's last part: unless that is an unknown, the wire must end
  // with it too (pairing compares a wire request with many views; most differ here at once). Then
  // only the shortest kept tail found on the wire is walked, to say where it differs.
  const last = view.at(-1);
  const wireLast = wire.at(-1);
  if (last && last.type !== 'unknown' && (!wireLast || !same(wireLast, last))) {
    for (let s = starts.length - 1; s >= 0; s--) {
      const m = starts[s] as number;
      const p = view[m] as Part;
      const k = p.type === 'unknown' ? undefined : where.get(partKey(p))?.at(-1);
      if (k === undefined) continue;
      tried(walk(wire, view, k, m, at, spans));
      break;
    }
    return best;
  }
  for (const m of starts) {
    const p = view[m] as Part;
    const ks = p.type === 'unknown' ? range(i, wire.length) : (where.get(partKey(p)) ?? []);
    for (const k of ks) {
      const r = walk(wire, view, k, m, at, spans);
      if (tried(r)) return r;
    }
  }
  return best;
}

/**
 * Where a kept tail may start, from view part `from` on: a user text, or the message being sent
 * unless it opens with tool results (a result goes right after its call: neither is kept alone).
 */
function keptStarts(view: readonly Part[], from: number): number[] {
  let sent = view.length;
  while (sent > from && (view[sent - 1] as Part).role !== 'assistant') sent--;
  const out: number[] = [];
  for (let m = from; m < view.length; m++) {
    const p = view[m] as Part;
    if ((p.role === 'user' && p.type === 'text') || (m === sent && p.role !== 'tool')) out.push(m);
  }
  return out;
}

const range = (a: number, b: number): number[] => Array.from({ length: Math.max(0, b - a) }, (_, k) => a + k);

/** Whether wire part `w` is what a `maybe` unknown names: that part, or another result for the same call. */
function standsFor(w: Part, maybe: Part): boolean {
  if (same(w, maybe)) return true;
  return w.type === 'tool_result' && maybe.type === 'tool_result' && w.callId === maybe.callId;
}

/** Texts a spanning unknown may stand for whole: what a client adds is user or system text. */
const spannable = (p: Part): boolean => p.type === 'text' && (p.role === 'user' || p.role === 'system');

/**
 * Where the wire resumes after a spanning unknown that starts at wire part `from`: at the first
 * wire part equal to the next view part `next`, or past the first user or system text that ends
 * with `next`'s text after a blank line (`tail`: `next` is used up). Null: the parts it would have
 * to skip are not texts a client adds, or nothing agrees with `next`.
 */
function spanEnd(wire: readonly Part[], from: number, next: Part | undefined): { next: number; tail: boolean } | null {
  // Another unknown next decides for itself what it stands for.
  if (next?.type === 'unknown') return { next: from, tail: false };
  if (next === undefined) {
    let k = from;
    while (k < wire.length && spannable(wire[k] as Part)) k++;
    return k === wire.length ? { next: k, tail: false } : null;
  }
  for (let k = from; k < wire.length; k++) {
    const w = wire[k] as Part;
    if (same(w, next)) return { next: k, tail: false };
    if (next.type === 'text' && w.type === 'text' && w.role === next.role && w.text.endsWith(`\n\n${next.text}`))
      return { next: k + 1, tail: true };
    if (!spannable(w)) return null;
  }
  return null;
}

/**
 * A mismatch at wire part `i` and view part `j`, with how many parts differ position by position
 * from there (a shifted list differs everywhere after the shift), of how many wire positions the
 * aligned lists cover.
 */
function mismatchAt(wire: readonly Part[], view: readonly Part[], i: number, j: number): SubResult {
  const w = wire[i];
  const v = view[j];
  const at = textDiff(w, v);
  const first = at ?? { wire: describePart(w), view: describePart(v) };
  let differing = 0;
  const n = Math.max(wire.length - i, view.length - j);
  for (let k = 0; k < n; k++) {
    const a = wire[i + k];
    const b = view[j + k];
    if (b?.type !== 'unknown' && (!a || !b || !same(a, b))) differing++;
  }
  return { status: 'mismatch', index: i, wire: first.wire, view: first.view, differing, of: i + n };
}

function describeTool(t: NormTool | undefined): string {
  if (!t) return '(no tool)';
  return `${t.name}${t.description === null ? '' : ` (description ${t.description.length} chars)`}${t.schema === null ? '' : ` schema ${t.schema.length} chars`}`;
}

export function compareTools(wire: readonly NormTool[] | null, view: readonly NormTool[] | null): SubResult {
  if (view === null) return { status: 'unknown', why: 'the log does not record the tool schemas' };
  const w = wire ?? [];
  const n = Math.max(w.length, view.length);
  for (let i = 0; i < n; i++) {
    const a = w[i];
    const b = view[i];
    if (!a || !b || a.name !== b.name) return { status: 'mismatch', index: i, wire: describeTool(a), view: describeTool(b) };
    if (a.description !== b.description)
      return { status: 'mismatch', index: i, wire: `${a.name} description`, view: `${b.name} description differs` };
    if (a.schema !== b.schema)
      return {
        status: 'mismatch',
        index: i,
        wire: `${a.name} schema ${a.schema ?? 'none'}`.slice(0, 200),
        view: `${b.name} schema ${b.schema ?? 'none'}`.slice(0, 200),
      };
  }
  return { status: 'match' };
}

export interface RequestResult {
  readonly verdict: 'match' | 'mismatch' | 'unknown';
  readonly system: SubResult;
  readonly messages: SubResult;
  readonly tools: SubResult;
  readonly firstDiff: string | null;
}

/**
 * One wire request against one view. When the view knows the system prompt, system and messages
 * are compared as one sequence (Codex sends its base instructions as a developer message, and a
 * log may hold them either way); when it does not, the messages alone are compared.
 */
export function compareRequest(wire: NormRequest, view: NormRequest): RequestResult {
  let system: SubResult;
  let messages: SubResult;
  if (view.system === null) {
    system =
      wire.system && wire.system.length > 0
        ? { status: 'unknown', why: 'the log does not record the system prompt' }
        : { status: 'unknown', why: 'the log does not say whether there is a system prompt' };
    messages = compareParts(wire.parts, view.parts);
  } else {
    const w = joinTextRuns([...(wire.system ?? []), ...wire.parts]);
    const v = joinTextRuns([...view.system, ...view.parts]);
    const all = compareParts(w, v);
    const wireSystemLen = joinTextRuns(wire.system ?? []).length;
    if (all.status === 'mismatch' && (all.index ?? 0) < Math.max(wireSystemLen, 1) && wireSystemLen > 0) {
      system = all;
      messages = { status: 'unknown', why: 'not compared: the system prompt differs first' };
    } else {
      system = { status: 'match' };
      // Indexes count message parts (after the system prompt) of the wire request.
      messages = all.index === undefined ? all : { ...all, index: all.index - wireSystemLen };
    }
  }
  const tools = compareTools(wire.tools, view.tools);
  const subs = { system, messages, tools };
  const verdict = Object.values(subs).some((s) => s.status === 'mismatch')
    ? 'mismatch'
    : Object.values(subs).some((s) => s.status === 'unknown')
      ? 'unknown'
      : 'match';
  let firstDiff: string | null = null;
  for (const [name, s] of Object.entries(subs)) {
    if (s.status === 'mismatch') {
      const count = s.differing !== undefined ? ` (${s.differing} of ${s.of ?? 0} parts differ in place)` : '';
      firstDiff = `${name}[${s.index ?? 0}]${count}: wire ${s.wire ?? ''} ≠ log ${s.view ?? ''}`;
      break;
    }
  }
  return { verdict, system, messages, tools, firstDiff };
}

/**
 * Overlap of the two message lists as bags of parts (Jaccard, 0…1): order-blind, so a view with
 * parts out of place still pairs with its request. The view's unknown parts are left out: they
 * stand for what the log does not hold, never for a part the wire could share. A view whose
 * history may have been replaced (`span: 'history'`) is as close as the closest of its kept tails.
 */
export function similarity(wire: NormRequest, view: NormRequest): number {
  const a = bag(wire.parts);
  const h = view.parts.findIndex((p) => p.type === 'unknown' && p.span === 'history');
  const tails = h < 0 ? [0] : [0, ...keptStarts(view.parts, h + 1)];
  return Math.max(...tails.map((t) => jaccard(a, bag(view.parts.slice(t)))));
}

function bag(ps: readonly Part[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of ps) if (p.type !== 'unknown') m.set(partKey(p), (m.get(partKey(p)) ?? 0) + 1);
  return m;
}

function jaccard(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let inter = 0;
  let union = 0;
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    inter += Math.min(a.get(k) ?? 0, b.get(k) ?? 0);
    union += Math.max(a.get(k) ?? 0, b.get(k) ?? 0);
  }
  return union === 0 ? 1 : inter / union;
}
