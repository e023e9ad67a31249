import type { diagnosticJson, inspectJson } from '../present/json';

/*
 * What a follower shows of a session, and the differences between two looks at it. The entries are
 * those of `inspect --json` (src/main/present/json.ts), so a follower's consumer reads the same
 * fields as a one-off inspection.
 */

type InspectJson = ReturnType<typeof inspectJson>;
export type RequestEntry = InspectJson['requests'][number];
export type CompactionEntry = InspectJson['compactions'][number];
export type FindingEntry = ReturnType<typeof diagnosticJson>;

/** The session as one look saw it. */
export interface FollowState {
  readonly requests: readonly RequestEntry[];
  readonly compactions: readonly CompactionEntry[];
  readonly findings: readonly FindingEntry[];
}

/**
 * One difference, in the order a consumer should apply them. `request` and `compaction` are new
 * entries, or entries that changed (a response's usage arrived, a compaction ended): the same
 * `index` or `id` replaces the one shown. `withdrawn` is a finding that no longer holds (a rule
 * that depends on what comes later). `reloaded` says everything shown before is void; the whole
 * state follows it as new entries.
 */
export type FollowUpdate =
  | ({ readonly type: 'request' } & RequestEntry)
  | ({ readonly type: 'compaction' } & CompactionEntry)
  | ({ readonly type: 'finding' } & FindingEntry)
  | ({ readonly type: 'withdrawn' } & FindingEntry)
  | { readonly type: 'reloaded'; readonly path: string; readonly reason: string };

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Findings counted by their JSON, so that two equal findings are two (a multiset). */
function counted(findings: readonly FindingEntry[]): Map<string, { entry: FindingEntry; n: number }> {
  const m = new Map<string, { entry: FindingEntry; n: number }>();
  for (const f of findings) {
    const key = JSON.stringify(f);
    const had = m.get(key);
    if (had) had.n++;
    else m.set(key, { entry: f, n: 1 });
  }
  return m;
}

/**
 * Why `next` does not extend `prev`, or null when it does: a request shown before is gone or now
 * stands for another event, or a compaction shown before is gone. Appending lines never does this;
 * a rewrite that kept the file's first bytes does.
 */
export function regression(prev: FollowState, next: FollowState): string | null {
  if (next.requests.length < prev.requests.length)
    return `the session now has ${next.requests.length} requests, not ${prev.requests.length}`;
  for (let i = 0; i < prev.requests.length; i++) {
    const a = prev.requests[i] as RequestEntry;
    const b = next.requests[i] as RequestEntry;
    if (a.seq !== b.seq || a.id !== b.id) return `request #${i} now stands for another event`;
  }
  const ids = new Set(next.compactions.map((c) => c.id));
  const gone = prev.compactions.find((c) => !ids.has(c.id));
  return gone ? `compaction ${gone.id} is gone` : null;
}

/** The updates that take a consumer from `prev` (null: nothing shown yet) to `next`, which must extend it. */
export function diffStates(prev: FollowState | null, next: FollowState): FollowUpdate[] {
  const out: FollowUpdate[] = [];
  next.requests.forEach((r, i) => {
    if (!prev || !same(prev.requests[i], r)) out.push({ type: 'request', ...r });
  });
  const before = new Map((prev?.compactions ?? []).map((c) => [c.id, c]));
  for (const c of next.compactions) if (!same(before.get(c.id), c)) out.push({ type: 'compaction', ...c });
  const was = counted(prev?.findings ?? []);
  const now = counted(next.findings);
  for (const [key, { entry, n }] of was) for (let k = now.get(key)?.n ?? 0; k < n; k++) out.push({ type: 'withdrawn', ...entry });
  for (const [key, { entry, n }] of now) for (let k = was.get(key)?.n ?? 0; k < n; k++) out.push({ type: 'finding', ...entry });
  return out;
}
