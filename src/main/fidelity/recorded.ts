import { attachCaptures, CaptureError, callOf, readCaptures } from '../capture/attach';
import { joinedView } from '../capture/joined-view';
import { type CapturedRequest, bodyText } from '../mock/record';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { compareRequest } from '../wire/compare';
import { normalizeView } from '../wire/normalize';
import { normalizeWire } from './compare';

/*
 * The "recorded" column: the same run, with the captures `palimpsest record` wrote joined to the
 * log. The judge is still the mock provider's own recording (what it received, byte for byte): for
 * every model request it received, the joined session must hold that exact request — found by its
 * body — and the view Palimpsest shows for it must equal what was sent. Failed attempts count like
 * any request: each must be in the join, with the status the mock answered.
 */

export interface RecordedRequest {
  readonly seq: number;
  readonly status: number;
  /** The joined request it is (null: the capture lacks it). */
  readonly joined: number | null;
  readonly source: string | null;
  readonly purpose: string | null;
  readonly joinedStatus: number | null;
  /** The joined request carries an error (HTTP, cut stream, error event, transport). */
  readonly joinedError: boolean;
  readonly verdict: 'match' | 'mismatch' | 'unknown' | 'missing';
  readonly firstDiff: string | null;
}

export interface RecordedComparison {
  readonly captures: number;
  readonly requests: readonly RecordedRequest[];
  readonly wire: number;
  readonly exact: number;
  /** Attempts the mock failed: an HTTP error, or a fault played behind a 200 (a cut stream, an error event). */
  readonly failedOnWire: number;
  /** Failed attempts the join holds with their failure: the same HTTP status, or an error for a fault. */
  readonly failedJoined: number;
  /** Rule ids of the findings with and without the capture. */
  readonly findingsJoined: readonly string[];
  readonly findingsLogOnly: readonly string[];
  readonly error: string | null;
}

const ids = (ds: readonly { rule: string; severity: string }[]): string[] =>
  [...new Set(ds.filter((d) => d.severity !== 'info').map((d) => d.rule))].sort();

export async function compareRecorded(
  mainLog: string | null,
  captured: readonly CapturedRequest[],
  capturePaths: readonly string[],
  protocol: string,
): Promise<RecordedComparison> {
  const models = captured.filter((c) => c.protocol !== null && c.answer.kind !== 'aux');
  // A failed attempt: an HTTP error, or a fault the mock played (a cut stream, an error event).
  const failedAttempt = (c: CapturedRequest): boolean => c.answer.status >= 400 || c.answer.kind.startsWith('fault');
  const failedOnWire = models.filter(failedAttempt).length;
  const empty = (error: string): RecordedComparison => ({
    captures: capturePaths.length,
    requests: [],
    wire: models.length,
    exact: 0,
    failedOnWire,
    failedJoined: 0,
    findingsJoined: [],
    findingsLogOnly: [],
    error,
  });
  if (!mainLog) return empty('the client wrote no log');
  if (capturePaths.length === 0) return empty('the run was not recorded');
  // A log that cannot be read is this run's error, as in compareLog, not the end of the suite.
  let ins: SessionInspector;
  try {
    ins = new SessionInspector(await loadSession(mainLog));
  } catch (e) {
    return empty(`Palimpsest could not load the log: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    await ins.loadRuleTexts();
    const findingsLogOnly = ids(ins.diagnostics());
    let captures;
    try {
      captures = await readCaptures(capturePaths);
    } catch (e) {
      return empty(e instanceof CaptureError ? `${e.path}: ${e.message}` : String(e));
    }
    const join = await attachCaptures(ins, captures);
    if (!join) return empty('no capture');
    const findingsJoined = ids(ins.diagnostics());
    const used = new Set<number>();
    const requests: RecordedRequest[] = [];
    for (const c of models) {
      const body = bodyText(c);
      const j = join.requests.find((r) => !used.has(r.index) && callOf(ins, r)?.exchange.request.body === body);
      if (!j) {
        requests.push({
          seq: c.seq,
          status: c.answer.status,
          joined: null,
          source: null,
          purpose: null,
          joinedStatus: null,
          joinedError: false,
          verdict: 'missing',
          firstDiff: 'the joined session does not hold this request',
        });
        continue;
      }
      used.add(j.index);
      const view = await joinedView(ins, j);
      const wire = normalizeWire(c);
      const cmp = view && wire ? compareRequest(wire, normalizeView(view, protocol)) : null;
      requests.push({
        seq: c.seq,
        status: c.answer.status,
        joined: j.index,
        source: j.source,
        purpose: j.purpose,
        joinedStatus: j.status,
        joinedError: j.error !== null,
        verdict: cmp?.verdict ?? 'mismatch',
        firstDiff: cmp ? cmp.firstDiff : 'no view',
      });
    }
    const exact = requests.filter((r) => r.verdict === 'match').length;
    // Joined with its failure: the same HTTP error status, or (a fault behind a 200) an error on the wire call.
    const failedJoined = requests.filter((r, k) => {
      const c = models[k] as CapturedRequest;
      if (!failedAttempt(c) || r.joined === null) return false;
      return c.answer.status >= 400 ? r.joinedStatus === c.answer.status : r.joinedError;
    }).length;
    return {
      captures: capturePaths.length,
      requests,
      wire: models.length,
      exact,
      failedOnWire,
      failedJoined,
      findingsJoined,
      findingsLogOnly,
      error: null,
    };
  } finally {
    await ins.session.dispose();
  }
}
