import { dirname, resolve } from 'node:path';
import { namedCapturePath } from '../capture/discover';
import type { Rates } from '../../shared/forensics/survival';
import { inspectJson } from '../present/json';
import { branchSurvival } from '../session/forensics';
import type { SessionInspector } from '../session/inspector';
import type { LoadedSession } from '../session/types';
import { diffStates, regression, type FollowState, type FollowUpdate } from './diff';
import { changed, fingerprint, rewritten, type Fingerprint } from './fingerprint';
import { ChangeWatch } from './watch';

/*
 * Follows a session while its harness writes it. Each change of its files is read, and what the
 * session then shows is compared with what it showed before (diff.ts). Lines appended to the
 * session's last file are read on from where the last read stopped (LoadedSession.readOn,
 * src/main/session/read-on.ts), so a change costs what it adds, not the session's size; any other
 * change (a file rewritten, another file of the session, a format that does not read on) loads
 * the session again. Both give exactly a fresh load's answer (docs/architecture.md, "Following a
 * session").
 */

export interface FollowerOptions {
  /** The session file (or folder) as the user named it. */
  readonly path: string;
  /**
   * Loads the session as the caller wants it (format, captures joined, rule texts read), with
   * LoadOptions.resumable so that it can read on; or, given `loaded` (the last session read on),
   * makes that one the caller's way instead of loading. The follower disposes what it returns.
   */
  open(path: string, loaded?: LoadedSession): Promise<SessionInspector>;
  readonly branch?: string;
  /** Files read with the session besides its own (captures given by the user). */
  readonly alsoWatch?: readonly string[];
  onUpdate(update: FollowUpdate): void;
  /** A load that failed (the file went away, became unreadable); the last state stays shown. */
  onError?(message: string): void;
  /**
   * After each load's updates: the bytes the followed files had before it started, when (ms since
   * the epoch, fractional), and whether the session was read on rather than loaded again (for the
   * soak bench).
   */
  onLoaded?(loaded: { readonly bytes: number; readonly at: number; readonly readOn: boolean }): void;
  /** Poll period in ms (default 250). */
  readonly pollMs?: number;
  /** How long a half-written last line may stay unfinished before the load reads it as it is (default 1000 ms). */
  readonly quietMs?: number;
}

const POLL_MS = 250;
const QUIET_MS = 1000;

/** The paths a session's changes can show up in: its files, their folders, its subagent folder and the capture named for it. */
function watchedPaths(path: string, inspector: SessionInspector | null, also: readonly string[]): string[] {
  const files = inspector ? inspector.session.files.map((f) => resolve(f.path)) : [resolve(path)];
  const stem = resolve(path).replace(/\.jsonl$/, '');
  const paths = [
    ...files,
    ...files.map((f) => dirname(f)),
    stem,
    `${stem}/subagents`,
    namedCapturePath(path),
    ...also.map((a) => resolve(a)),
  ];
  return [...new Set(paths)];
}

export class SessionFollower {
  private inspector: SessionInspector | null = null;
  private state: FollowState | null = null;
  private prints = new Map<string, Fingerprint | null>();
  /** Survival rates of the compactions, and the compactions (id, outcome, end) they were measured on. */
  private survival: { key: string; rates: ReadonlyMap<string, Rates> } | null = null;
  private paths: string[];
  private readonly watch: ChangeWatch;
  private running: Promise<void> | null = null;
  private again = false;
  private quietTimer: NodeJS.Timeout | null = null;
  private disposed = false;

  private constructor(private readonly o: FollowerOptions) {
    this.paths = watchedPaths(o.path, null, o.alsoWatch ?? []);
    this.watch = new ChangeWatch(() => this.poke(), o.pollMs ?? POLL_MS);
  }

  /** Loads the session, emits everything it shows, and follows it until dispose(). A first load that fails throws. */
  static async start(o: FollowerOptions): Promise<SessionFollower> {
    const f = new SessionFollower(o);
    try {
      await f.load(null, true);
    } catch (err) {
      await f.dispose();
      throw err;
    }
    return f;
  }

  /** The session as last loaded (replaced, and the old one disposed, at each load). */
  get current(): SessionInspector | null {
    return this.inspector;
  }

  /** Something may have changed: look, one look at a time, and once more if poked meanwhile. */
  private poke(): void {
    // Not before the first load is done: the watch's timer runs from the start, and a look then
    // would find no fingerprints yet, take every path as changed and load the session a second
    // time beside the first (a loaded machine, where the first load outlasts a poll, did).
    if (this.disposed || this.inspector === null) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.look()
      .catch((err: unknown) => this.o.onError?.(err instanceof Error ? err.message : String(err)))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  private async look(): Promise<void> {
    const now = await this.fingerprints();
    let reason: string | null = null;
    let any = false;
    // Whether only the session's last file changed: then it can be read on.
    const files = this.inspector?.session.files ?? [];
    const last = files.length > 0 ? resolve((files[files.length - 1] as { path: string }).path) : null;
    let onlyLast = true;
    for (const p of this.paths) {
      const before = this.prints.get(p) ?? null;
      const after = now.get(p) ?? null;
      if (!changed(before, after)) continue;
      any = true;
      if (p !== last) onlyLast = false;
      reason ??= rewritten(p, before, after);
    }
    if (!any || this.disposed) return;
    // A half-written last line waits for its end (or for the file to stay quiet that long).
    const waiting = [...now.values()].some((f) => f && !f.endsWithLf && Date.now() - f.mtimeMs < (this.o.quietMs ?? QUIET_MS));
    if (waiting) {
      if (!this.quietTimer) {
        this.quietTimer = setTimeout(() => {
          this.quietTimer = null;
          this.poke();
        }, this.o.quietMs ?? QUIET_MS);
      }
      return;
    }
    await this.load(reason, false, reason === null && onlyLast);
  }

  private async fingerprints(): Promise<Map<string, Fingerprint | null>> {
    const out = new Map<string, Fingerprint | null>();
    await Promise.all(this.paths.map(async (p) => void out.set(p, await fingerprint(p))));
    return out;
  }

  /**
   * The compactions' survival rates, as `inspect --json` gives them. A compaction's rates do not
   * change once it ended, and appended lines rarely end one: they are measured again only when a
   * compaction appears or ends, not on every appended line.
   */
  private async survivalOf(loaded: SessionInspector, branch: string): Promise<ReadonlyMap<string, Rates>> {
    const key = loaded
      .replay(branch)
      .compactions.map((c) => `${c.id}:${c.outcome ?? ''}:${c.endSeq ?? ''}`)
      .join('\n');
    if (this.survival?.key !== key) {
      const rates = new Map((await branchSurvival(loaded, branch)).map((c) => [c.id, c.survival]));
      this.survival = { key, rates };
    }
    return this.survival.rates;
  }

  /** Reads the change: on from the last session when `appended` (only the last file grew) and it can, else from the start. */
  private async load(rewrite: string | null, first: boolean, appended = false): Promise<void> {
    // Fingerprints before the load: a write during it is seen by the next look.
    const prints = await this.fingerprints();
    const read = appended ? ((await this.inspector?.session.readOn?.()) ?? null) : null;
    const loaded = read ? await this.o.open(this.o.path, read) : await this.o.open(this.o.path);
    if (this.disposed) {
      await loaded.session.dispose();
      return;
    }
    const branch = this.o.branch ?? loaded.defaultBranch;
    const j = inspectJson(this.o.path, loaded, branch, [], await this.survivalOf(loaded, branch));
    const next: FollowState = { requests: j.requests, compactions: j.compactions, findings: j.diagnostics };
    const old = this.inspector;
    this.inspector = loaded;
    this.prints = prints;
    const reason = first ? null : (rewrite ?? (this.state ? regression(this.state, next) : null));
    if (reason !== null) this.o.onUpdate({ type: 'reloaded', path: this.o.path, reason });
    const updates = diffStates(reason !== null ? null : this.state, next);
    this.state = next;
    // Paths found by this load (a new subagent file) are watched too, and their fingerprints kept.
    const paths = watchedPaths(this.o.path, loaded, this.o.alsoWatch ?? []);
    const added = paths.filter((p) => !this.prints.has(p));
    this.paths = paths;
    for (const p of added) this.prints.set(p, await fingerprint(p));
    this.watch.set(this.paths);
    for (const u of updates) this.o.onUpdate(u);
    // The bytes the load covered: what the fingerprints saw, or what was read on (whole lines, maybe more).
    let bytes = 0;
    if (read) for (const f of read.files) bytes += f.bytes;
    else for (const f of prints.values()) if (f && !f.isDirectory) bytes += f.size;
    this.o.onLoaded?.({ bytes, at: performance.timeOrigin + performance.now(), readOn: read !== null });
    await old?.session.dispose();
  }

  /** Stops watching and closes the session; waits for a load under way. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.watch.dispose();
    if (this.quietTimer) clearTimeout(this.quietTimer);
    await this.running;
    await this.inspector?.session.dispose();
    this.inspector = null;
  }
}
