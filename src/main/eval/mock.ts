import { matches, Script, ScriptPlayer, type Answerer, type Matcher, type RequestDigest } from '../mock';
import { extractiveSummary } from '../mock/extractive';
import type { FaultScenario, MockConfig } from '../../shared/eval/spec';
import type { Result } from '../../shared/eval/result';

/*
 * What the mock provider answers in one eval cell: the cell's fault steps first (injected faults,
 * each used as scripted), then the trace's script, then — when enabled and its `when` holds — the
 * mock's extractive summary, then the script's fallback; anything else gets the mock's HTTP 500
 * "script exhausted". Each cell gets fresh players, so a step used up in one cell is not in the next.
 */

export interface CellMock {
  readonly answer: Answerer;
}

export interface LoadedMock {
  readonly script: Script | null;
  /** null: off; otherwise the extractive answerer's options (when, sizing). */
  readonly extractive: { readonly when?: Matcher; readonly maxLinesPerSection?: number; readonly charsPerToken?: number } | null;
}

export function parseMock(config: MockConfig | undefined, script: unknown): Result<LoadedMock> {
  let parsed: Script | null = null;
  if (script !== undefined) {
    const r = Script.safeParse(script);
    if (!r.success)
      return { ok: false, error: `mock script: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
    parsed = r.data;
  }
  const ex = config?.extractive;
  // Default: extractive when there is no script (docs/eval.md, "mock").
  const extractive =
    ex === undefined ? (parsed === null ? {} : null) : ex === false ? null : ex === true ? {} : (ex as LoadedMock['extractive']);
  return { ok: true, value: { script: parsed, extractive } };
}

export function cellMock(mock: LoadedMock, fault: FaultScenario | null): Result<CellMock> {
  let faults: ScriptPlayer | null = null;
  if (fault) {
    const r = Script.safeParse({ steps: fault.steps });
    if (!r.success)
      return { ok: false, error: `faults.${fault.name}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
    faults = new ScriptPlayer(r.data);
  }
  const script = mock.script ? new ScriptPlayer({ steps: mock.script.steps }) : null;
  const answer: Answerer = (d: RequestDigest) => {
    const f = faults?.choose(d);
    if (f && f.step !== null) return f.fault ?? f.reply;
    const s = script?.choose(d);
    if (s && s.step !== null) return s.fault ?? s.reply;
    if (mock.extractive && matches(mock.extractive.when, d)) return extractiveSummary(d, mock.extractive);
    if (mock.script?.fallback) return mock.script.fallback;
    return null; // the mock's own "script exhausted" answer
  };
  return { ok: true, value: { answer } };
}
