import type { CapturedRequest } from '../mock/record';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { type NormRequest, type NormTool, type Part, canonicalJson, describePart, joinTextRuns, normalizeView, normalizeWire } from './normalize';

/*
 * Compares, for every request captured on the wire, the model view Palimpsest rebuilds from the
 * client's log with what was actually sent — both brought to the common shape of ./normalize.ts.
 *
 * Pairing. A logged request whose id is the id the mock gave its response (`msg_mock_0003`: the
 * response to wire request 3) pairs with that wire request. Otherwise the log's requests (every
 * branch, deduplicated, in log order) are walked in step with the captured requests: a captured
 * request pairs with the first unpaired logged request whose
 * view equals it; a captured request identical to the one just paired is a retry of it (one
 * logged call, several attempts on the wire); otherwise it pairs with the most similar of the
 * next three unpaired logged requests when at least 20 % of their parts are common (a mismatch to
 * report); otherwise it
 * is "not in the log" (a summarizer call or failed attempt only the wire shows).
 *
 * Verdicts. match: system, messages and tools all equal. mismatch: some part the log does record
 * differs (the first differing part is reported). unknown: nothing recorded differs, but the log
 * does not reveal some part (the system prompt, tools, a masked item, an instruction) — never
 * counted as a match. not-in-log: no logged request stands for it.
 */

export type Verdict = 'match' | 'mismatch' | 'unknown' | 'not-in-log';

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

export interface PairedView {
  readonly branch: string;
  readonly index: number;
  readonly id: string;
  readonly seq: number;
  readonly purpose: string;
}

export interface RequestComparison {
  /** The captured request's seq in captured.jsonl. */
  readonly seq: number;
  readonly path: string;
  readonly answerStatus: number;
  readonly answerKind: string;
  readonly label: string | null;
  readonly verdict: Verdict;
  readonly view: PairedView | null;
  /** The captured seq this request repeats (a retry with an identical body). */
  readonly retryOf: number | null;
  readonly system: SubResult | null;
  readonly messages: SubResult | null;
  readonly tools: SubResult | null;
  /** Where the first difference is, in words. */
  readonly firstDiff: string | null;
  readonly wireParts: number;
  readonly notes: readonly string[];
  /** The start of the wire request's last user text, to tell what a request only the wire shows was. */
  readonly lastUser: string;
}

export interface ScenarioComparison {
  readonly client: string;
  readonly version: string;
  readonly scenario: string;
  readonly covers: readonly string[];
  /** The log could not be loaded / no log. */
  readonly error: string | null;
  readonly runProblems: readonly string[];
  readonly requests: readonly RequestComparison[];
  /** Captured model requests (aux and unrouted requests excluded). */
  readonly captured: number;
  readonly matched: number;
  readonly mismatched: number;
  readonly unknown: number;
  readonly notInLog: number;
  /** matched + mismatched. */
  readonly known: number;
  /** Logged requests no captured request paired with. */
  readonly unpairedViews: readonly PairedView[];
  readonly logRequests: number;
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** For two texts of the same role and kind: where they first differ, with a little context on each side. */
function textDiff(w: Part | undefined, v: Part | undefined): { wire: string; view: string } | null {
  const text = (p: Part | undefined): string | null => (p?.type === 'text' || p?.type === 'reasoning' ? p.text : p?.type === 'tool_result' ? p.content : null);
  const a = text(w);
  const b = text(v);
  if (a === null || b === null || !w || !v || w.type !== v.type || w.role !== v.role) return null;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const ctx = (t: string): string => JSON.stringify(t.slice(Math.max(0, i - 40), i + 60));
  const kind = `${w.role} ${w.type}`;
  return { wire: `${kind} (${a.length} chars) at char ${i}: ${ctx(a)}`, view: `${kind} (${b.length} chars) at char ${i}: ${ctx(b)}` };
}

/** Compare two part lists: match, or the first index where they differ; `unknown` parts on the view side make it unknown. */
export function compareParts(wire: readonly Part[], view: readonly Part[]): SubResult {
  const r = firstDifference(wire, view);
  if (r.status !== 'mismatch') return r;
  let differing = 0;
  const n = Math.max(wire.length, view.length);
  for (let i = 0; i < n; i++) {
    const w = wire[i];
    const v = view[i];
    if (v?.type !== 'unknown' && (!w || !v || !same(w, v))) differing++;
  }
  return { ...r, differing, of: n };
}

function firstDifference(wire: readonly Part[], view: readonly Part[]): SubResult {
  const n = Math.max(wire.length, view.length);
  let unknownAt: number | null = null;
  for (let i = 0; i < n; i++) {
    const w = wire[i];
    const v = view[i];
    if (v?.type === 'unknown') {
      unknownAt ??= i;
      continue;
    }
    if (!w || !v || !same(w, v)) {
      const at = textDiff(w, v);
      if (at) return { status: 'mismatch', index: i, wire: at.wire, view: at.view };
      return { status: 'mismatch', index: i, wire: describePart(w), view: describePart(v) };
    }
  }
  if (unknownAt !== null) {
    const v = view[unknownAt];
    return { status: 'unknown', index: unknownAt, why: v?.type === 'unknown' ? v.why : 'unknown part' };
  }
  return { status: 'match' };
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
    if (a.description !== b.description) return { status: 'mismatch', index: i, wire: `${a.name} description`, view: `${b.name} description differs` };
    if (a.schema !== b.schema) return { status: 'mismatch', index: i, wire: `${a.name} schema ${a.schema ?? 'none'}`.slice(0, 200), view: `${b.name} schema ${b.schema ?? 'none'}`.slice(0, 200) };
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
    system = wire.system && wire.system.length > 0 ? { status: 'unknown', why: 'the log does not record the system prompt' } : { status: 'unknown', why: 'the log does not say whether there is a system prompt' };
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
  const verdict = Object.values(subs).some((s) => s.status === 'mismatch') ? 'mismatch' : Object.values(subs).some((s) => s.status === 'unknown') ? 'unknown' : 'match';
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

/** Overlap of the two message lists as bags of parts (Jaccard, 0…1): order-blind, so a view with parts out of place still pairs with its request. */
export function similarity(wire: NormRequest, view: NormRequest): number {
  const count = (ps: readonly Part[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (const p of ps) m.set(canonicalJson(p), (m.get(canonicalJson(p)) ?? 0) + 1);
    return m;
  };
  const a = count(wire.parts);
  const b = count(view.parts);
  let inter = 0;
  let union = 0;
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    inter += Math.min(a.get(k) ?? 0, b.get(k) ?? 0);
    union += Math.max(a.get(k) ?? 0, b.get(k) ?? 0);
  }
  return union === 0 ? 1 : inter / union;
}

function lastUserText(parts: readonly Part[]): string {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i];
    if (p?.role === 'user' && p.type === 'text') {
      const t = p.text.replace(/\s+/g, ' ').trim();
      return t.length > 100 ? `…${t.slice(-100)}` : t;
    }
  }
  return '';
}

/** A response id the mock provider gave (its number is the wire request's seq). */
const MOCK_ID = /(?:^|_)mock_0*(\d+)$/;

/** Two lists pair when at least this share of their parts is common. */
export const PAIR_THRESHOLD = 0.2;
/** How many unpaired logged requests ahead a mismatching wire request may pair with. */
export const PAIR_WINDOW = 3;

interface LoggedRequest extends PairedView {
  readonly norm: NormRequest;
}

/** Every logged request of every branch, each once, in log order, with its normalised view. */
export async function loggedRequests(ins: SessionInspector, protocol: string): Promise<LoggedRequest[]> {
  const seen = new Set<number>();
  const out: LoggedRequest[] = [];
  const branches = [ins.defaultBranch, ...ins.branches.map((b) => b.name).filter((b) => b !== ins.defaultBranch)];
  for (const branch of branches) {
    const st = ins.replay(branch);
    for (const r of st.requests) {
      if (seen.has(r.seq)) continue;
      seen.add(r.seq);
      const v = await ins.fullView(r.index, branch);
      if (!v) continue;
      const instruction = r.input ? (r.input.instruction === undefined ? null : r.input.instruction) : undefined;
      out.push({ branch, index: r.index, id: r.id, seq: r.seq, purpose: r.purpose, norm: normalizeView(v, protocol, instruction) });
    }
  }
  return out.sort((a, b) => a.seq - b.seq);
}

export interface CompareInput {
  readonly client: string;
  readonly version: string;
  readonly scenario: string;
  readonly covers: readonly string[];
  readonly captured: readonly CapturedRequest[];
  readonly mainLog: string | null;
  readonly runProblems: readonly string[];
}

/** Pair and compare captured requests with logged ones (see the header comment). */
export function pairAndCompare(captured: readonly CapturedRequest[], logged: readonly LoggedRequest[]): { requests: RequestComparison[]; unpaired: PairedView[] } {
  const used = new Set<number>();
  const out: RequestComparison[] = [];
  let next = 0;
  let last: { body: string; result: RequestComparison } | null = null;
  const view = (l: LoggedRequest): PairedView => ({ branch: l.branch, index: l.index, id: l.id, seq: l.seq, purpose: l.purpose });
  for (const c of captured) {
    if (c.protocol === null || c.answer.kind === 'aux') continue;
    const wire = normalizeWire(c);
    const base = {
      seq: c.seq, path: c.path, answerStatus: c.answer.status, answerKind: c.answer.kind, label: c.answer.label,
      wireParts: wire?.parts.length ?? 0, notes: wire?.notes ?? [], lastUser: wire ? lastUserText(wire.parts) : '',
    };
    if (!wire) {
      out.push({ ...base, verdict: 'not-in-log', view: null, retryOf: null, system: null, messages: null, tools: null, firstDiff: 'the body is not a model request' });
      continue;
    }
    const body = canonicalJson(wire);
    if (last && last.body === body) {
      // The same body again: a retry (or a repeat) of the previous wire request.
      const prev = last.result;
      out.push({ ...prev, ...base, retryOf: prev.retryOf ?? prev.seq });
      continue;
    }
    let pick: { l: LoggedRequest; i: number } | null = null;
    // The mock names every response after the wire request it answers (msg_mock_0003,
    // resp_mock_0003): a logged request whose id is its response's id says which wire request it is.
    for (let i = 0; i < logged.length && !pick; i++) {
      const m = MOCK_ID.exec((logged[i] as LoggedRequest).id);
      if (m && Number(m[1]) === c.seq && !used.has(i)) pick = { l: logged[i] as LoggedRequest, i };
    }
    // A logged request whose id names another wire request's response is that request's, not this one's.
    const otherWire = (l: LoggedRequest): boolean => {
      const m = MOCK_ID.exec(l.id);
      return m !== null && Number(m[1]) !== c.seq;
    };
    for (let i = next; i < logged.length && !pick; i++) {
      const l = logged[i] as LoggedRequest;
      if (used.has(i) || otherWire(l)) continue;
      if (compareRequest(wire, l.norm).verdict !== 'mismatch') {
        pick = { l, i };
        break;
      }
    }
    if (!pick) {
      // The most similar of the next few unpaired logged requests, if similar enough.
      let best = PAIR_THRESHOLD;
      let seen = 0;
      for (let i = next; i < logged.length && seen < PAIR_WINDOW; i++) {
        if (used.has(i)) continue;
        seen++;
        const l = logged[i] as LoggedRequest;
        if (otherWire(l)) continue;
        const sim = similarity(wire, l.norm);
        if (sim >= best && (!pick || sim > best)) {
          pick = { l, i };
          best = sim;
        }
      }
    }
    if (!pick) {
      const result: RequestComparison = { ...base, verdict: 'not-in-log', view: null, retryOf: null, system: null, messages: null, tools: null, firstDiff: null };
      out.push(result);
      last = { body, result };
      continue;
    }
    used.add(pick.i);
    next = pick.i + 1;
    const result: RequestComparison = { ...base, ...compareRequest(wire, pick.l.norm), view: view(pick.l), retryOf: null };
    out.push(result);
    last = { body, result };
  }
  const unpaired = logged.filter((_, i) => !used.has(i)).map(view);
  return { requests: out, unpaired };
}

export function summarize(input: Omit<CompareInput, 'captured' | 'mainLog'>, requests: readonly RequestComparison[], unpaired: readonly PairedView[], logRequests: number, error: string | null): ScenarioComparison {
  const count = (v: Verdict) => requests.filter((r) => r.verdict === v).length;
  const matched = count('match');
  const mismatched = count('mismatch');
  return {
    client: input.client, version: input.version, scenario: input.scenario, covers: input.covers, runProblems: input.runProblems,
    error, requests, captured: requests.length, matched, mismatched, unknown: count('unknown'), notInLog: count('not-in-log'),
    known: matched + mismatched, unpairedViews: unpaired, logRequests,
  };
}

export async function compareLog(input: CompareInput): Promise<ScenarioComparison> {
  const protocol = input.captured.find((c) => c.protocol !== null)?.protocol ?? (input.client === 'codex' ? 'openai-responses' : 'anthropic-messages');
  if (!input.mainLog) {
    const { requests } = pairAndCompare(input.captured, []);
    return summarize(input, requests, [], 0, 'the client wrote no log');
  }
  let ins: SessionInspector;
  try {
    ins = new SessionInspector(await loadSession(input.mainLog));
  } catch (e) {
    const { requests } = pairAndCompare(input.captured, []);
    return summarize(input, requests, [], 0, `Palimpsest could not load the log: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    const logged = await loggedRequests(ins, protocol);
    const { requests, unpaired } = pairAndCompare(input.captured, logged);
    return summarize(input, requests, unpaired, logged.length, null);
  } finally {
    await ins.session.dispose();
  }
}
