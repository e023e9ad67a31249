import { resolve } from 'node:path';
import type { Diagnostic } from '../../../shared/model/diagnostic';
import { awaitSessionChange } from '../../follow/await-change';
import { changed, fingerprint, rewritten, type Fingerprint } from '../../follow/fingerprint';
import type { SessionInspector } from '../../session/inspector';
import type { OpenSession, SessionRegistry } from '../sessions';
import { sessionSummary } from './summary';

/*
 * The app's Follow in the host (awaitSessionChange): a held call waits for the session's files to
 * change, then reads the change into the open session under the same id. Lines appended to its
 * last file are read on from where the last read stopped (LoadedSession.readOn); anything else —
 * a file truncated, replaced or rewritten in place, another file of the session, a format that
 * does not read on, a line the reader reports — loads the session again. Either way the session
 * is then what a fresh load of the same bytes is (src/main/session/read-on.ts), and the renderer
 * asks again only for what it shows.
 *
 * A session is opened without keeping its import open (that costs memory, and most sessions
 * opened are finished), so its first change loads it again, resumable; from then on it reads on.
 * Its files are fingerprinted at the first wait, so that a rewrite as its first change is said.
 *
 * One read per session at a time: a call that sees a change while a read is under way waits for
 * that read, and reads again only if the files have changed since it began. Each read begins from
 * the session the last one made, so no line is read twice.
 *
 * A first view (a large session's first lines, OpenSession.partial) is not followed: its files are
 * the lines read so far, not what changed. A call on one waits for the whole session, which the
 * registry puts in its place as the next revision (OpenSession.wholeAt); that revision is answered
 * as a change like any other, read on (`reloaded` null), its findings all added (the first view
 * withheld them). Changes of the files are read into the whole from then on.
 */

/** What a held awaitSessionChange answers. */
export interface SessionChange {
  readonly changed: boolean;
  readonly revision: number;
  readonly reloaded: string | null;
  readonly summary: ReturnType<typeof sessionSummary> | null;
  readonly findings: { readonly added: number; readonly withdrawn: number };
}

/** One change read into a session: the revision it made, why it loaded again (null: read on), and its findings' difference. */
interface Read {
  readonly revision: number;
  readonly reloaded: string | null;
  readonly findings: { readonly added: number; readonly withdrawn: number };
}

export class SessionFollow {
  /** The read under way, by session id. */
  private readonly reading = new Map<string, Promise<Read | null>>();
  /** The reads done, by session id, newest last (a few kept: a caller that missed some is told what they were). */
  private readonly done = new Map<string, Read[]>();
  /**
   * The fingerprints of a session's files taken before it was read (to tell an append from a
   * rewrite); for a session as opened, taken at its first wait if its files are still as it read them.
   */
  private readonly prints = new WeakMap<SessionInspector, Map<string, Fingerprint | null>>();

  constructor(private readonly registry: SessionRegistry) {}

  /** Waits up to `waitMs` for the session to be past revision `since` (default: its revision now), reading the change in. */
  async await(sessionId: string, waitMs: number, since?: number): Promise<SessionChange> {
    const end = Date.now() + waitMs;
    const current = this.registry.get(sessionId).revision;
    const from = Math.min(since ?? current, current);
    for (;;) {
      const s = this.registry.get(sessionId);
      if (s.revision > from) return this.answer(s, from);
      await this.baseline(s.inspector);
      const left = end - Date.now();
      if (s.partial && left > 0) {
        await this.registry.untilWhole(sessionId, left);
        // The whole read failed: the first view is all there is, and nothing is read into it.
        if (this.registry.get(sessionId).partial) await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now())));
        continue;
      }
      const files = s.inspector.session.files.map((f) => ({ path: f.path, bytes: f.bytes }));
      if (left <= 0 || !(await awaitSessionChange(files, left))) return this.answer(this.registry.get(sessionId), from);
      await this.read(sessionId);
      // The session read shows the change; or its files changed back meanwhile: wait on.
    }
  }

  /**
   * Fingerprints a session as opened (the open took none), so that a first change that rewrites
   * its files is told from an append — the app waits on a session as soon as it shows it. Taken
   * only while the files have the sizes the session read: a change before that first wait is
   * loaded again without a reason, none being known.
   */
  private async baseline(inspector: SessionInspector): Promise<void> {
    if (this.prints.has(inspector)) return;
    const now = await fingerprints(inspector);
    if (!this.prints.has(inspector) && !differs(inspector, now)) this.prints.set(inspector, now);
  }

  /** Reads the session's change in; one read at a time per session, a caller arriving meanwhile waiting for it. */
  private read(sessionId: string): Promise<Read | null> {
    const running = this.reading.get(sessionId);
    if (running) return running;
    const next = this.readOnce(sessionId).finally(() => this.reading.delete(sessionId));
    this.reading.set(sessionId, next);
    return next;
  }

  private async readOnce(sessionId: string): Promise<Read | null> {
    const s = this.registry.get(sessionId);
    if (s.partial) return null;
    const before = this.prints.get(s.inspector);
    // Taken before the read: a write during it is seen by the next call.
    const now = await fingerprints(s.inspector);
    if (!differs(s.inspector, now)) return null;
    let reason: string | null = null;
    if (before) for (const [p, f] of now) reason ??= rewritten(p, before.get(p) ?? null, f);
    const appendedOnly = before !== undefined && reason === null && onlyLastGrew(s.inspector, before, now);
    const loaded = appendedOnly ? ((await s.inspector.session.readOn?.()) ?? null) : null;
    const inspector = await this.registry.reload(sessionId, loaded ?? undefined);
    this.prints.set(inspector, now);
    const findings = findingsDiff(s.inspector.diagnostics(), inspector.diagnostics());
    const next = this.registry.replace(sessionId, inspector);
    const read: Read = { revision: next.revision, reloaded: reason, findings };
    const done = this.done.get(sessionId) ?? [];
    done.push(read);
    this.done.set(sessionId, done.slice(-16));
    return read;
  }

  /** What changed since revision `from`, as the contract says it. */
  private answer(s: OpenSession, from: number): SessionChange {
    if (s.revision <= from)
      return { changed: false, revision: s.revision, reloaded: null, summary: null, findings: { added: 0, withdrawn: 0 } };
    const reads = (this.done.get(s.id) ?? []).filter((r) => r.revision > from);
    // Since a first view (no findings shown): every finding of the whole is added, none withdrawn,
    // and the reads that count are those after the whole came in.
    const sinceFirstView = s.wholeAt !== undefined && s.wholeAt > from;
    const after = sinceFirstView ? (s.wholeAt as number) : from;
    // Reads older than those kept: the difference of findings is not known, only that there were changes.
    const complete = reads.length === s.revision - after;
    const reloaded =
      reads.find((r) => r.reloaded !== null)?.reloaded ?? (complete ? null : 'the session changed more often than the host remembers');
    return {
      changed: true,
      revision: s.revision,
      reloaded,
      summary: sessionSummary(s),
      findings: sinceFirstView
        ? { added: s.inspector.diagnostics().length, withdrawn: 0 }
        : {
            added: reads.reduce((n, r) => n + r.findings.added, 0),
            withdrawn: reads.reduce((n, r) => n + r.findings.withdrawn, 0),
          },
    };
  }
}

async function fingerprints(inspector: SessionInspector): Promise<Map<string, Fingerprint | null>> {
  const out = new Map<string, Fingerprint | null>();
  for (const f of inspector.session.files) out.set(resolve(f.path), await fingerprint(f.path));
  return out;
}

/** Whether any of the session's files has another size than the session read (or is gone). */
function differs(inspector: SessionInspector, now: ReadonlyMap<string, Fingerprint | null>): boolean {
  return inspector.session.files.some((f) => now.get(resolve(f.path))?.size !== f.bytes);
}

/** Whether, since `before`, only the session's last file changed. */
function onlyLastGrew(
  inspector: SessionInspector,
  before: ReadonlyMap<string, Fingerprint | null>,
  now: ReadonlyMap<string, Fingerprint | null>,
): boolean {
  const files = inspector.session.files;
  return files.slice(0, -1).every((f) => !changed(before.get(resolve(f.path)) ?? null, now.get(resolve(f.path)) ?? null));
}

/** Findings the new session has and the old had not (added), and the other way round (withdrawn). */
function findingsDiff(old: readonly Diagnostic[], now: readonly Diagnostic[]): { added: number; withdrawn: number } {
  const key = (d: Diagnostic): string => `${d.rule}\0${d.file ?? ''}\0${d.line ?? ''}\0${d.seqs.join(',')}\0${d.message}`;
  const count = (ds: readonly Diagnostic[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (const d of ds) m.set(key(d), (m.get(key(d)) ?? 0) + 1);
    return m;
  };
  const a = count(old);
  const b = count(now);
  let added = 0;
  let withdrawn = 0;
  for (const [k, n] of b) added += Math.max(0, n - (a.get(k) ?? 0));
  for (const [k, n] of a) withdrawn += Math.max(0, n - (b.get(k) ?? 0));
  return { added, withdrawn };
}
