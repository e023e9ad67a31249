/** The harnesses whose sessions discovery finds. */
export type Harness = 'claude-code' | 'codex' | 'dsh' | 'rind' | 'cosh' | 'palimpsest' | 'gemini-cli' | 'opencode';

export const HARNESSES: readonly Harness[] = ['claude-code', 'codex', 'dsh', 'rind', 'cosh', 'palimpsest', 'gemini-cli', 'opencode'];

/** One file of a session, as found on disk: what the session index stamps a session by. */
export interface FileStamp {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** A session found by walking a root, before it is read. */
export interface SessionCandidate {
  readonly harness: Harness;
  /** What to open it with (`palimpsest inspect`): the main file, or the folder of a Rind session. */
  readonly path: string;
  /** Its files, the one the summary is read from first; companions (subagents, Rind's other files) after. */
  readonly files: readonly FileStamp[];
}

/** What a fast scan of a session's files says; the same shape comes out of the index. */
export interface ScanResult {
  /** The harness's own session id. */
  readonly id: string | null;
  /** The working directory the session ran in. */
  readonly project: string | null;
  readonly title: string | null;
  /** ISO 8601 time of the first record, when the log has one. */
  readonly startedAt: string | null;
  /** ISO 8601 time of the last record, when the log has one. */
  readonly endedAt: string | null;
  /** Model calls on the session's default branch (what `palimpsest inspect` counts as requests). */
  readonly requests: number | null;
  /** Compactions on the default branch (attempts, committed or not). */
  readonly compactions: number | null;
  /** The harness version that wrote the log, when it says. */
  readonly harnessVersion: string | null;
  /** The last model named in the log. */
  readonly model: string | null;
  /** Lines the scan could not read (invalid JSON, not an object). */
  readonly badLines: number;
  /** Anything the scan could not do, in a sentence each (unreadable file, unknown layout). */
  readonly problems: readonly string[];
}

/** One session of `palimpsest ls`: where it is, and its scan. */
export interface SessionSummary extends ScanResult {
  readonly harness: Harness;
  readonly path: string;
  /** Total size of its files in bytes. */
  readonly bytes: number;
  readonly files: number;
  /** Newest modification time of its files (ms since the epoch). */
  readonly mtimeMs: number;
  /** True when this summary came from the index rather than a scan in this run. */
  readonly cached: boolean;
}
