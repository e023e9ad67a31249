import type { CompactionRow, DiagnosticRow, RequestRow } from '../../shared/api/contract';

/**
 * Where the timeline's markers sit and where the stepping keys go. Pure: the store and the
 * timeline both read it, and it is tested on its own.
 *
 * A marker sits on a request. A compaction's marker is the first agent request after its last
 * event — the first view that shows what it did; a diagnostic's is the first request at or after
 * the event it cites first (the first view it can be seen in), else the last request.
 */

type Req = Pick<RequestRow, 'index' | 'seq' | 'purpose'>;

export interface Marker {
  readonly kind: 'compaction' | 'diagnostic';
  /** Position of the request in the list. */
  readonly index: number;
  readonly id: string;
  readonly label: string;
  readonly severity: DiagnosticRow['severity'] | null;
  /** The event the marker is about. */
  readonly seq: number;
}

/** Position of the first request whose seq is ≥ `seq`; the last request when none is; -1 without requests. */
export function requestAtOrAfter(requests: readonly Req[], seq: number): number {
  let lo = 0;
  let hi = requests.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((requests[mid] as Req).seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return Math.min(lo, requests.length - 1);
}

function lastSeqOf(c: Pick<CompactionRow, 'seqs' | 'endSeq' | 'startSeq'>): number | null {
  let last = c.endSeq ?? c.startSeq;
  for (const s of c.seqs) if (last === null || s > last) last = s;
  return last;
}

export function compactionMarkers(
  requests: readonly Req[],
  compactions: readonly Pick<CompactionRow, 'id' | 'seqs' | 'endSeq' | 'startSeq' | 'outcome' | 'trigger'>[],
): Marker[] {
  const out: Marker[] = [];
  for (const c of compactions) {
    const last = lastSeqOf(c);
    if (last === null) continue;
    let index = -1;
    for (let i = requestAtOrAfter(requests, last + 1); i >= 0 && i < requests.length; i++) {
      const r = requests[i] as Req;
      if (r.seq > last && r.purpose === 'agent') {
        index = i;
        break;
      }
    }
    if (index < 0) index = requests.length - 1;
    if (index < 0) continue;
    out.push({
      kind: 'compaction',
      index,
      id: c.id,
      label: `${c.id} · ${c.trigger} · ${c.outcome ?? 'open'}`,
      severity: null,
      seq: c.startSeq ?? last,
    });
  }
  return out.sort((a, b) => a.index - b.index);
}

export function diagnosticMarkers(
  requests: readonly Req[],
  diagnostics: readonly Pick<DiagnosticRow, 'rule' | 'severity' | 'seqs' | 'message'>[],
): Marker[] {
  const out: Marker[] = [];
  diagnostics.forEach((d, i) => {
    const seq = d.seqs[0];
    if (seq === undefined || requests.length === 0) return;
    out.push({
      kind: 'diagnostic',
      index: requestAtOrAfter(requests, seq),
      id: `${d.rule}#${i}`,
      label: `${d.severity} ${d.rule}`,
      severity: d.severity,
      seq,
    });
  });
  return out.sort((a, b) => a.index - b.index);
}

/** The request of the next (dir 1) or previous (dir -1) marker strictly beyond `current`; null when there is none. */
export function nextMarker(markers: readonly Marker[], current: number | null, dir: 1 | -1): number | null {
  const at = current ?? (dir === 1 ? -1 : Number.POSITIVE_INFINITY);
  if (dir === 1) {
    for (const m of markers) if (m.index > at) return m.index;
    return null;
  }
  for (let i = markers.length - 1; i >= 0; i--) {
    const m = markers[i] as Marker;
    if (m.index < at) return m.index;
  }
  return null;
}

/** The request `delta` steps from `current`, clamped to the list; null when nothing changes. */
export function stepRequest(count: number, current: number | null, delta: number): number | null {
  if (count === 0) return null;
  const next = Math.min(count - 1, Math.max(0, (current ?? -1) + delta));
  return next === current ? null : next;
}
