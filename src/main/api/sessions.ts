import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { ApiErrorCode, OpenSessionProgress, ProgressEvent } from '../../shared/api/contract';
import { canonicalPath as canonical } from '../files/canonical';
import { kindOf, NotRegularFile, whyUnreadable } from '../files/open-regular';
import type { FormatId } from '../importers/types';
import { SessionInspector } from '../session/inspector';
import { loadSession, UnreadableSessionError } from '../session/load';
import { RULES } from '../../shared/diagnostics';
import { stepThrough } from './steps';

/** An error a handler returns as a value: `{ ok: false, error: { code, message } }`. */
export class ApiFailure extends Error {
  constructor(readonly code: ApiErrorCode, message: string) {
    super(message);
  }
}

export interface OpenSession {
  readonly id: string;
  /** The path as the caller gave it. */
  readonly path: string;
  readonly inspector: SessionInspector;
}

/** Decides which paths a host may open (src/main/library/library.ts: the library's sessions and folders). */
export interface PathPolicy {
  allows(path: string): Promise<boolean>;
  /** Why `path` may not be opened, in a sentence for the user. */
  refusal(path: string): string;
}

export interface SessionRegistryOptions {
  /**
   * Paths that may be opened: only these files (compared after resolving symlinks), a policy, or
   * `'any'`. A host started on some sessions should not become a reader of every file on the machine.
   */
  readonly allow: readonly string[] | 'any' | PathPolicy;
  /** Most sessions open at once. Default 16. */
  readonly maxSessions?: number;
}

/**
 * Owns the loaded sessions of one host (a web host or an Electron window's main process). Each
 * `open` loads the file once and hands out an id; `close` and `dispose` release the memory.
 */
export class SessionRegistry implements Disposable {
  private readonly sessions = new Map<string, OpenSession>();
  private readonly maxSessions: number;
  private allowed: Promise<Set<string>> | null = null;
  private disposed = false;
  /** Opens under way, with their progress (a 500 MB session takes seconds), by a number of their own. */
  private readonly inProgress = new Map<number, OpenSessionProgress>();
  private nextOpen = 0;

  constructor(private readonly options: SessionRegistryOptions) {
    this.maxSessions = options.maxSessions ?? 16;
  }

  get size(): number {
    return this.sessions.size;
  }

  private async isAllowed(path: string): Promise<boolean> {
    const allow = this.options.allow;
    if (allow === 'any') return true;
    if (!Array.isArray(allow)) return (allow as PathPolicy).allows(path);
    this.allowed ??= Promise.all(allow.map(canonical)).then((ps) => new Set(ps));
    return (await this.allowed).has(await canonical(path));
  }

  /** The opens under way and how far each has got, oldest first. */
  opening(): OpenSessionProgress[] {
    return [...this.inProgress.values()];
  }

  async open(path: string, format?: FormatId, onProgress?: (e: ProgressEvent) => void): Promise<OpenSession> {
    const id = this.nextOpen++;
    try {
      return await this.load(path, format, (e) => {
        if (e.operation === 'openSession') this.inProgress.set(id, e);
        onProgress?.(e);
      });
    } finally {
      this.inProgress.delete(id);
    }
  }

  private async load(path: string, format: FormatId | undefined, onProgress: (e: ProgressEvent) => void): Promise<OpenSession> {
    if (this.disposed) throw new ApiFailure('INTERNAL', 'The session registry is closed.');
    if (!(await this.isAllowed(path))) {
      const policy = this.options.allow;
      const why = typeof policy === 'object' && !Array.isArray(policy) ? (policy as PathPolicy).refusal(path) : `${path} is not one of the sessions this window was opened with.`;
      throw new ApiFailure('FORBIDDEN_PATH', why);
    }
    if (this.sessions.size >= this.maxSessions) {
      throw new ApiFailure('LIMIT', `${this.sessions.size} sessions are open; close one first.`);
    }
    const info = await stat(path).catch((err: unknown) => {
      throw new ApiFailure('UNREADABLE', `${whyUnreadable(path, err)}.`);
    });
    // A folder may be one session (Rind's); the loader says when it is not. A FIFO or a device is
    // never opened: the read would hold one of the few threads file reads share, for good.
    const kind = kindOf(info);
    if (kind !== null && kind !== 'a directory') throw new ApiFailure('UNREADABLE', `${new NotRegularFile(path, kind).message}.`);
    // A folder's size says nothing about its files: then only the bytes read are known.
    const total = info.isFile() ? info.size : null;
    const progress = (phase: ProgressEvent['phase'], done: number | null, of: number | null = total) =>
      onProgress({ operation: 'openSession', path, phase, done: done === null || of === null ? done : Math.min(done, of), total: of });
    progress('reading', 0);
    let inspector: SessionInspector;
    try {
      const session = await loadSession(path, { format, onBytes: (read) => progress('reading', read) });
      inspector = new SessionInspector(session);
      // Replay and the diagnostics are seconds of work on a session of a million events: done in
      // steps, with the host answering other questions (and this open's progress) between them.
      progress('replaying', 0, session.events.length);
      await stepThrough(inspector.replaySteps(), (p) => progress('replaying', p.done, p.total));
      // The diagnostics catalog reads whole summaries: re-read them once, so every count agrees.
      await inspector.loadRuleTexts();
      // The summary counts the findings: worked out here, inside the progress, not after it.
      progress('checking', 0, RULES.length);
      await stepThrough(inspector.diagnosticsSteps(), (p) => progress('checking', p.done, p.total));
    } catch (err: unknown) {
      progress('failed', null);
      if (err instanceof UnreadableSessionError) throw new ApiFailure('UNREADABLE', err.message);
      throw err;
    }
    progress('done', total);
    if (this.disposed) {
      await inspector.session.dispose();
      throw new ApiFailure('INTERNAL', 'The session registry was closed while loading.');
    }
    const s: OpenSession = { id: randomUUID(), path, inspector };
    this.sessions.set(s.id, s);
    return s;
  }

  get(id: string): OpenSession {
    const s = this.sessions.get(id);
    if (!s) throw new ApiFailure('NO_SESSION', `No open session "${id}" (it was closed, or the host restarted).`);
    return s;
  }

  close(id: string): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    // Files kept open for re-reading are released; nothing waits on it.
    void s.inspector.session.dispose();
    return true;
  }

  dispose(): void {
    this.disposed = true;
    for (const s of this.sessions.values()) void s.inspector.session.dispose();
    this.sessions.clear();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
