import { type CapturedRequest, bodyJson } from '../mock/record';
import type { RecordedComparison } from './recorded';
import { isGeminiCompressionCall } from '../wire/gemini';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import type { SubResult } from '../wire/compare';
import { type NormRequest, normalizeBody } from '../wire/normalize';
import {
  type LoggedRequest,
  type PairedView,
  type Verdict,
  type WireEntry,
  lastUserText,
  loggedRequests,
  pairRequests,
} from '../wire/pair';

export type { PairedView, Verdict } from '../wire/pair';

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
 * does not reveal some part (the system prompt, tools, a masked item, an instruction, the context
 * Claude Code adds to the messages) — never counted as a match. not-in-log: no logged request stands for it.
 */

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
  /** The same run joined with its `palimpsest record` captures (null: not recorded). */
  readonly recorded?: RecordedComparison | null;
}

/** A request the mock recorded, in the common shape (null: not a model request this knows). */
export function normalizeWire(c: CapturedRequest): NormRequest | null {
  return normalizeBody(c.protocol, bodyJson(c));
}

/** A response id the mock provider gave (its number is the wire request's seq). */
const MOCK_ID = /(?:^|_)mock_0*(\d+)$/;

export interface CompareInput {
  readonly client: string;
  readonly version: string;
  readonly scenario: string;
  readonly covers: readonly string[];
  readonly captured: readonly CapturedRequest[];
  readonly mainLog: string | null;
  readonly runProblems: readonly string[];
}

/** Pair and compare captured requests with logged ones (src/main/wire/pair.ts). */
export function pairAndCompare(
  captured: readonly CapturedRequest[],
  logged: readonly LoggedRequest[],
  compatible?: (w: WireEntry, l: LoggedRequest) => boolean,
): { requests: RequestComparison[]; unpaired: PairedView[] } {
  // The mock names every response after the wire request it answers (msg_mock_0003, resp_mock_0003).
  const owner = (id: string): number | null => {
    const m = MOCK_ID.exec(id);
    return m ? Number(m[1]) : null;
  };
  const models = captured.filter((c) => c.protocol !== null && c.answer.kind !== 'aux');
  const entries = models.map((c): WireEntry => {
    const at = Date.parse(c.at);
    return { key: c.seq, norm: normalizeWire(c), ...(Number.isNaN(at) ? {} : { at }) };
  });
  // Gemini CLI's compression calls repeat the agent history nearly whole: never an agent turn's.
  const pairable = (w: WireEntry, l: LoggedRequest): boolean =>
    !(l.purpose === 'agent' && w.norm !== null && isGeminiCompressionCall(lastUserText(w.norm.parts))) && (compatible?.(w, l) ?? true);
  const { pairs, unpaired } = pairRequests(entries, logged, owner, pairable);
  const requests = pairs.map((p, i): RequestComparison => {
    const c = models[i] as CapturedRequest;
    const norm = entries[i]?.norm ?? null;
    return {
      seq: c.seq,
      path: c.path,
      answerStatus: c.answer.status,
      answerKind: c.answer.kind,
      label: c.answer.label,
      wireParts: norm?.parts.length ?? 0,
      notes: norm?.notes ?? [],
      lastUser: norm ? lastUserText(norm.parts) : '',
      verdict: p.verdict,
      view: p.view,
      retryOf: p.retryOf,
      system: p.result?.system ?? null,
      messages: p.result?.messages ?? null,
      tools: p.result?.tools ?? null,
      firstDiff: norm === null ? 'the body is not a model request' : (p.result?.firstDiff ?? null),
    };
  });
  return { requests, unpaired };
}

export function summarize(
  input: Omit<CompareInput, 'captured' | 'mainLog'>,
  requests: readonly RequestComparison[],
  unpaired: readonly PairedView[],
  logRequests: number,
  error: string | null,
): ScenarioComparison {
  const count = (v: Verdict) => requests.filter((r) => r.verdict === v).length;
  const matched = count('match');
  const mismatched = count('mismatch');
  return {
    client: input.client,
    version: input.version,
    scenario: input.scenario,
    covers: input.covers,
    runProblems: input.runProblems,
    error,
    requests,
    captured: requests.length,
    matched,
    mismatched,
    unknown: count('unknown'),
    notInLog: count('not-in-log'),
    known: matched + mismatched,
    unpairedViews: unpaired,
    logRequests,
  };
}

/**
 * OpenCode writes each assistant message (its `time.created`, the logged request's time) before it
 * sends the request, so a wire request that arrived before that time is not that one: a title
 * call, whose single user text a summarizer view with nothing recorded would otherwise equal.
 * A second of slack covers clocks read by two processes.
 */
function notBeforeLogged(w: WireEntry, l: LoggedRequest): boolean {
  return w.at === undefined || l.at === undefined || w.at >= l.at - 1000;
}

export async function compareLog(input: CompareInput): Promise<ScenarioComparison> {
  const protocol =
    input.captured.find((c) => c.protocol !== null)?.protocol ??
    (input.client === 'codex' ? 'openai-responses' : input.client === 'gemini-cli' ? 'gemini' : 'anthropic-messages');
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
    const { requests, unpaired } = pairAndCompare(input.captured, logged, input.client === 'opencode' ? notBeforeLogged : undefined);
    return summarize(input, requests, unpaired, logged.length, null);
  } finally {
    await ins.session.dispose();
  }
}
