/**
 * The turns of a rollout, owned here so that their counts stay true wherever the import writes
 * them: turn numbers go up by one per start; a turn's items and model calls are counted from
 * zero at its start; and what happened since the last turn ended (a compaction, a resume marked)
 * is forgotten when the next one ends, so a resume is marked at most once between two turn ends.
 */
export class TurnTracker {
  private open_ = false;
  private no = 0;
  private items = 0;
  private requests = 0;
  private ended = 0;
  private compactedSinceEnd = false;
  private resumeMarked = false;

  /** A turn started and has not ended. */
  get open(): boolean {
    return this.open_;
  }

  /** The current turn has placed no item and made no model call yet (meaningful while a turn is open). */
  get untouched(): boolean {
    return this.items === 0 && this.requests === 0;
  }

  /**
   * A full initial context logged here would be a resume: a turn has ended, with no compaction
   * since (which makes Codex re-inject it) and no resume marked since.
   */
  get resumable(): boolean {
    return this.ended > 0 && !this.compactedSinceEnd && !this.resumeMarked;
  }

  /** Start a turn; its number. */
  start(): number {
    this.open_ = true;
    this.items = 0;
    this.requests = 0;
    return ++this.no;
  }

  /** End the current turn; its number. */
  end(): number {
    this.open_ = false;
    this.ended++;
    this.compactedSinceEnd = false;
    this.resumeMarked = false;
    return this.no;
  }

  /** An item was placed (counted only inside a turn). */
  item(): void {
    if (this.open_) this.items++;
  }

  /** A model call was made. */
  request(): void {
    this.requests++;
  }

  /** A compaction replaced the history. */
  compacted(): void {
    this.compactedSinceEnd = true;
  }

  /** Mark a resume; false (nothing changes) when one is marked already since the last turn end. */
  markResume(): boolean {
    if (this.resumeMarked) return false;
    this.resumeMarked = true;
    return true;
  }
}
