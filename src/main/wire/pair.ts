import { CONTEXT_BLOCK_UNKNOWN, UNRECORDED_CONTEXT, attachmentUnknown } from '../dialects/claude-unrecorded';
import { userSeam } from '../dialects/claude-user-seam';
import {
  GEMINI_CONTEXT_UNKNOWN,
  GEMINI_CONTEXT_UNRECORDED,
  GEMINI_INTERRUPTED_PLACEHOLDER,
  GEMINI_INTERRUPTED_UNKNOWN,
} from '../dialects/gemini-unrecorded';
import { parallelCallsAtRisk } from '../../shared/replay/parallel-calls';
import type { Unlogged } from '../../shared/replay/records';
import type { SessionInspector } from '../session/inspector';
import { type RequestResult, compareRequest, similarity } from './compare';
import { type NormRequest, type Part, type UnrecordedRendering, canonicalJson, normalizeView } from './normalize';

/*
 * Pairs requests seen on the wire with the requests a log records — by content, never by position
 * alone — for the fidelity suite and for joining a capture to its session.
 *
 * A logged request whose id is the id of a wire request's response (Claude Code logs the
 * provider's message id) is that request's, and no other's. Otherwise the log's requests (every
 * branch, deduplicated, in log order) are walked in step with the wire: a wire request pairs with
 * the first unpaired logged request whose view equals it; a wire request identical to the one just
 * paired is another attempt of it (one logged call, several attempts on the wire); otherwise it
 * pairs with the most similar of the next three unpaired logged requests when at least 20 % of
 * their parts are common (a disagreement to report); otherwise only the wire has it (a summarizer
 * call, a failed attempt, a side call).
 */

export type Verdict = 'match' | 'mismatch' | 'unknown' | 'not-in-log';

export interface PairedView {
  readonly branch: string;
  readonly index: number;
  readonly id: string;
  readonly seq: number;
  readonly purpose: string;
}

export interface LoggedRequest extends PairedView {
  readonly norm: NormRequest;
  /** When the log says the request was made (epoch ms), if it says. */
  readonly at?: number;
}

/** One wire request to pair: its key (capture position) and its body in the common shape (null: not a model request). */
export interface WireEntry {
  readonly key: number;
  readonly norm: NormRequest | null;
  /** The body's identity (its bytes' hash), when known: tells a retry without re-serialising the request. */
  readonly body?: string;
  /** When it arrived (epoch ms), if known. */
  readonly at?: number;
}

export interface Pairing {
  readonly key: number;
  readonly verdict: Verdict;
  readonly view: PairedView | null;
  /** The key of the wire request this one repeats (an identical body: a retry). */
  readonly retryOf: number | null;
  /** The comparison with the paired view (null: not paired, or not a model request). */
  readonly result: RequestResult | null;
}

/** Two lists pair when at least this share of their parts is common. */
export const PAIR_THRESHOLD = 0.2;
/** How many unpaired logged requests ahead a mismatching wire request may pair with. */
export const PAIR_WINDOW = 3;

/** Every logged request of every branch, each once, in log order, with its normalised view. */
export async function loggedRequests(ins: SessionInspector, protocol: string): Promise<LoggedRequest[]> {
  const seen = new Set<number>();
  const out: LoggedRequest[] = [];
  const branches = [ins.defaultBranch, ...ins.branches.map((b) => b.name).filter((b) => b !== ins.defaultBranch)];
  for (const branch of branches) {
    const st = ins.replay(branch);
    const mine = st.requests.filter((r) => !seen.has(r.seq));
    for (const r of mine) seen.add(r.seq);
    const views = await ins.fullViews(
      mine.map((r) => r.index),
      branch,
    );
    // Claude Code before its api-request records: what it adds to the messages is unknown in place.
    const claude: UnrecordedRendering = {
      firstUser: CONTEXT_BLOCK_UNKNOWN,
      item: (it) => attachmentUnknown(st.itemById.get(it.id)?.item.origin),
    };
    for (const [k, r] of mine.entries()) {
      const v = views[k];
      if (!v) continue;
      const instruction = r.input ? (r.input.instruction === undefined ? null : r.input.instruction) : undefined;
      let unrecorded: UnrecordedRendering | undefined;
      if (r.envelope.unrecorded.includes(UNRECORDED_CONTEXT)) {
        // How it joins user records depends on the version; what a reload may leave out, the
        // envelope says (the view names the same among its unknowns).
        const version = str((await ins.session.sourceLine(r.seq))?.version);
        const why = r.envelope.reloadMayDrop;
        const mayDrop = why ? { calls: parallelCallsAtRisk(v.items), why } : undefined;
        unrecorded = { ...claude, seam: userSeam(version), ...(mayDrop ? { mayDrop } : {}), ...unloggedRendering(r.unlogged) };
      }
      let norm = normalizeView(v, protocol, instruction, unrecorded);
      // A history the client may have replaced unlogged (a summary in place of its older messages):
      // the messages before a kept tail are unknown (./compare.ts, span 'history').
      const replaced = r.input ? undefined : r.unlogged.find((u) => u.history);
      if (replaced) norm = { ...norm, parts: [{ role: 'user', type: 'unknown', why: replaced.why, span: 'history' }, ...norm.parts] };
      // Gemini CLI before 0.44: the context turn it opens every chat with is not in the file.
      const hasContext = v.items.some((it) => st.itemById.get(it.id)?.item.origin === 'session_context');
      if (r.envelope.unrecorded.includes(GEMINI_CONTEXT_UNRECORDED) && !hasContext)
        norm = { ...norm, parts: [{ role: 'user', type: 'unknown', why: GEMINI_CONTEXT_UNKNOWN, span: 'any' }, ...norm.parts] };
      if (protocol === 'gemini') norm = { ...norm, parts: closeUnanswered(norm.parts) };
      const at = ins.events(r.seq, r.seq)[0]?.at;
      out.push({ ...(typeof at === 'number' ? { at } : {}), branch, index: r.index, id: r.id, seq: r.seq, purpose: r.purpose, norm });
    }
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/** What a request names as changed by the client unlogged (RequestEvent.unlogged), by call and by item, for normalizeView. */
function unloggedRendering(unlogged: readonly Unlogged[]): Pick<UnrecordedRendering, 'mayClear' | 'mayAdd' | 'mayAddFrom' | 'cleared'> {
  if (unlogged.length === 0) return {};
  const mayClear = new Map<string, string>();
  const mayAdd = new Map<string, string>();
  let cleared: string | undefined;
  let mayAddFrom: { item: string; why: string } | undefined;
  for (const u of unlogged) {
    if (u.history) continue;
    for (const c of u.calls ?? []) mayClear.set(c, u.why);
    if (u.item !== undefined && !u.onward) mayAdd.set(u.item, u.why);
    if (u.item !== undefined && u.onward) mayAddFrom = { item: u.item, why: u.why };
    // Neither calls nor item: what the masks the importer emitted before the request stand for.
    if (u.calls === undefined && u.item === undefined) cleared = u.why;
  }
  return { mayClear, mayAdd, ...(cleared !== undefined ? { cleared } : {}), ...(mayAddFrom ? { mayAddFrom } : {}) };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Where a user text follows function responses directly, the placeholder turn Gemini CLI may have put between. */
function closeUnanswered(parts: readonly Part[]): Part[] {
  const out: Part[] = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (last?.type === 'tool_result' && p.role === 'user' && p.type === 'text')
      out.push({
        role: 'assistant',
        type: 'unknown',
        why: GEMINI_INTERRUPTED_UNKNOWN,
        maybe: { role: 'assistant', type: 'text', text: GEMINI_INTERRUPTED_PLACEHOLDER },
      });
    out.push(p);
  }
  return out;
}

/** The start of a request's last user text, to tell what a request only the wire shows was. */
export function lastUserText(parts: readonly Part[]): string {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i];
    if (p?.role === 'user' && p.type === 'text') {
      const t = p.text.replace(/\s+/g, ' ').trim();
      return t.length > 100 ? `…${t.slice(-100)}` : t;
    }
  }
  return '';
}

/**
 * Pair wire requests (in wire order) with logged ones. `owner(id)`: the key of the wire request
 * whose response a logged request's id names, or null when the id names none.
 */
export function pairRequests(
  wire: readonly WireEntry[],
  logged: readonly LoggedRequest[],
  owner: (logId: string) => number | null,
  /** Whether a wire request may stand for a logged one at all (a summarizer call never for an agent request). */
  compatible: (w: WireEntry, l: LoggedRequest) => boolean = () => true,
): { pairs: Pairing[]; unpaired: PairedView[] } {
  const used = new Set<number>();
  const out: Pairing[] = [];
  // Which logged request each wire key owns by id, looked up once.
  const ownedBy = new Map<number, number>();
  logged.forEach((l, i) => {
    const k = owner(l.id);
    if (k !== null && !ownedBy.has(k)) ownedBy.set(k, i);
  });
  let next = 0;
  let last: { body: string; result: Pairing } | null = null;
  const view = (l: LoggedRequest): PairedView => ({ branch: l.branch, index: l.index, id: l.id, seq: l.seq, purpose: l.purpose });
  for (const w of wire) {
    if (!w.norm) {
      out.push({ key: w.key, verdict: 'not-in-log', view: null, retryOf: null, result: null });
      continue;
    }
    const body = w.body ?? canonicalJson(w.norm);
    if (last && last.body === body) {
      // The same body again: another attempt (or a repeat) of the previous wire request.
      const prev = last.result;
      out.push({ ...prev, key: w.key, retryOf: prev.retryOf ?? prev.key });
      continue;
    }
    let pick: { l: LoggedRequest; i: number } | null = null;
    const owned = ownedBy.get(w.key);
    if (owned !== undefined && !used.has(owned)) pick = { l: logged[owned] as LoggedRequest, i: owned };
    // A logged request whose id names another wire request's response is that request's, not this one's.
    const otherWire = (l: LoggedRequest): boolean => {
      const k = owner(l.id);
      return k !== null && k !== w.key;
    };
    for (let i = next; i < logged.length && !pick; i++) {
      const l = logged[i] as LoggedRequest;
      if (used.has(i) || otherWire(l) || !compatible(w, l)) continue;
      if (compareRequest(w.norm, l.norm).verdict !== 'mismatch') pick = { l, i };
    }
    if (!pick) {
      // The most similar of the next few unpaired logged requests, if similar enough.
      let best = PAIR_THRESHOLD;
      let seen = 0;
      for (let i = next; i < logged.length && seen < PAIR_WINDOW; i++) {
        if (used.has(i)) continue;
        seen++;
        const l = logged[i] as LoggedRequest;
        if (otherWire(l) || !compatible(w, l)) continue;
        const sim = similarity(w.norm, l.norm);
        if (sim >= best && (!pick || sim > best)) {
          pick = { l, i };
          best = sim;
        }
      }
    }
    if (!pick) {
      const result: Pairing = { key: w.key, verdict: 'not-in-log', view: null, retryOf: null, result: null };
      out.push(result);
      last = { body, result };
      continue;
    }
    used.add(pick.i);
    next = pick.i + 1;
    const cmp = compareRequest(w.norm, pick.l.norm);
    const result: Pairing = { key: w.key, verdict: cmp.verdict, view: view(pick.l), retryOf: null, result: cmp };
    out.push(result);
    last = { body, result };
  }
  return { pairs: out, unpaired: logged.filter((_, i) => !used.has(i)).map(view) };
}
