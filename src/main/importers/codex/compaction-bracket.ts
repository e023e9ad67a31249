import type { JsonLine } from '../../reader/types';

/** Codex's own estimate of the history (a token_count with every count 0 but the total). */
export interface Estimate {
  readonly total: number;
  readonly line: number;
}

/** A post-compaction estimate over the model window: not used, explained with the next provider count. */
export interface EstimateNote {
  readonly compactionLine: number;
  readonly estimate: Estimate;
}

/** A bracket just closed: what its `compaction/end` says, written at the `compacted` line. */
export interface ClosedBracket {
  readonly id: string;
  readonly from: JsonLine;
  readonly postTokens: number | undefined;
}

/**
 * The compaction bracket of a rollout and Codex's own estimates around it, owned here so that a
 * bracket opens at a `compacted` line and closes once, and its post-compaction size is read one
 * way only: Codex's estimate right after the line, else the latest one before it with no
 * provider count since. A size over the model window is never used: it is kept as a note,
 * taken once to report with the next provider count.
 */
export class CompactionBracket {
  /** Codex's latest estimate, with no provider count since. */
  private latest: Estimate | null = null;
  private bracket: { readonly id: string; readonly from: JsonLine; readonly before: Estimate | null } | null = null;
  private note: EstimateNote | null = null;

  /** A bracket is open: the next line closes it, unless it is Codex's estimate of the new history. */
  get isOpen(): boolean {
    return this.bracket !== null;
  }

  /** A provider count was read: an estimate before it does not measure what follows. */
  counted(): void {
    this.latest = null;
  }

  /** Open the bracket of the `compacted` line `from`; the caller has closed any open one (as the reader always has). */
  open(id: string, from: JsonLine): void {
    this.bracket = { id, from, before: this.latest };
    this.latest = null;
  }

  /** Codex's own estimate of the history was read: it closes the open bracket (if any) as its size. */
  estimated(e: Estimate, window: number | undefined): ClosedBracket | null {
    this.latest = e;
    return this.end(e, window);
  }

  /** Close the open bracket (null: none is open) with the estimate written before its line, if any. */
  close(window: number | undefined): ClosedBracket | null {
    return this.end(null, window);
  }

  /** Take the unused post-compaction estimate to report, if any. */
  takeNote(): EstimateNote | null {
    const n = this.note;
    this.note = null;
    return n;
  }

  private end(after: Estimate | null, window: number | undefined): ClosedBracket | null {
    const b = this.bracket;
    if (!b) return null;
    this.bracket = null;
    const est = after ?? b.before;
    if (est && window !== undefined && est.total > window) {
      this.note = { compactionLine: b.from.line, estimate: est };
      return { id: b.id, from: b.from, postTokens: undefined };
    }
    return { id: b.id, from: b.from, postTokens: est?.total };
  }
}
