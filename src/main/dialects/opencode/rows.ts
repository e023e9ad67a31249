/**
 * What the OpenCode readers (the SQLite database, the JSON storage trees) hand over, whatever the
 * layout: each session's listing, then its records in the order OpenCode itself reads them
 * (messages by creation time and id, each message's parts by id). The importer reads these
 * records, one per line of the private JSONL copy the load reads (materialise.ts).
 */

/** Where a session was found. */
export type OpenCodeLayout = 'sqlite' | 'storage' | 'storage-0.5';

export interface OpenCodeSessionInfo {
  readonly id: string;
  readonly layout: OpenCodeLayout;
  /** The database file or the storage folder it is in. */
  readonly where: string;
  readonly title?: string;
  readonly directory?: string;
  /** OpenCode's version that created the session, as recorded (`1.4.0`, `v1.16.0`, `1.17.3-aiand.1`). */
  readonly version?: string;
  readonly parentID?: string;
  /** Epoch milliseconds. */
  readonly created?: number;
  readonly updated?: number;
  /**
   * Databases only: the session's assistant messages (one model request each from 1.0 on, where
   * every step is a message of its own) and those of them that are compaction summaries.
   */
  readonly requests?: number;
  readonly compactions?: number;
}

/** One line of the copy: a session's info, a message, a part, or a row that could not be read. */
export type OpenCodeRecord =
  | { readonly opencode: 'session'; readonly info: OpenCodeSessionInfo }
  | { readonly opencode: 'message'; readonly id: string; readonly from: string; readonly info: Record<string, unknown> }
  | {
      readonly opencode: 'part';
      readonly id: string;
      readonly messageID: string;
      readonly from: string;
      readonly part: Record<string, unknown>;
    }
  | { readonly opencode: 'bad'; readonly from: string; readonly error: string };

/** A row's JSON data, or why it is not an object. */
export function parseData(text: unknown): Record<string, unknown> | string {
  if (typeof text !== 'string') return 'its data is not text';
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : 'its data is not a JSON object';
  } catch (e) {
    return `its data is not JSON (${e instanceof Error ? e.message : String(e)})`;
  }
}
