import { compareVersions } from '../../../shared/compat/newest';
import type { JsonLine } from '../../reader/types';
import type { ItemInfo } from './history';
import { utf8Bytes } from './json';
import {
  APPROX_BYTES_PER_TOKEN,
  COMPACT_USER_MESSAGE_MAX_TOKENS,
  HISTORY_BRIDGE_HEAD,
  HISTORY_BRIDGE_SUMMARY,
  SUMMARY_PREFIX_HEAD,
} from './known';
import type { CodexState } from './state';

/**
 * The older rule for the history after a local compaction (Codex 0.47's `compact.rs`,
 * `build_compacted_history`): the initial context, then ONE user message, the "history bridge",
 * that holds every user message of the history (joined by a blank line; "(none)" without any)
 * and the summary ("(no summary available)" when empty). Such a Codex logs the summary bare in
 * `compacted.message`; from 0.59 it logs the summary with its prefix and sends the user messages
 * one by one (./compaction.ts).
 *
 * The bridge is shown as its pieces, each an item read from the line its text is on: the head,
 * a copy of each user message (re-read from that message's line), and the summary (from the
 * `compacted` line). Consecutive user texts joined by a blank line are the one text Codex sent.
 */

/** The first version seen on the wire sending the user messages one by one (0.47 sent the bridge). */
const SEPARATE_MESSAGES_FROM = '0.59.0';

/** The bytes of joined user messages the bridge keeps whole; longer, Codex cuts them in the middle. */
export const BRIDGE_MAX_BYTES = COMPACT_USER_MESSAGE_MAX_TOKENS * APPROX_BYTES_PER_TOKEN;

/** The origin of a bridge's summary piece: re-read from its `compacted` line, prefixed again. */
export const BRIDGE_ORIGIN = 'compaction summary (history bridge)';
const HEAD_ORIGIN = 'rebuilt: history bridge';
const USER_ORIGIN = 'rebuilt: user message (in the history bridge)';

/** Whether a legacy compaction of this version, with this logged message, left a history bridge. */
export function usesHistoryBridge(version: string | undefined, message: string): boolean {
  if (version === undefined || message.startsWith(SUMMARY_PREFIX_HEAD)) return false;
  return (compareVersions(version, SEPARATE_MESSAGES_FROM) ?? 0) < 0;
}

/** The text of a bridge's summary piece, from the logged summary. */
export function bridgeSummary(message: string): string {
  return `${HISTORY_BRIDGE_SUMMARY}\n\n${message === '' ? '(no summary available)' : message}`;
}

/** What a bridge piece placed live says, for the next bridge: its text, the line it is re-read from, whether it is the summary. */
export interface PlacedPiece {
  readonly text: string;
  readonly from: JsonLine;
  readonly summary: boolean;
}

export interface BridgePiece {
  readonly text: string;
  /** The item it copies; null: none (the head, the summary). */
  readonly orig: ItemInfo | null;
  /** The line its text is re-read from; undefined: the `compacted` line. */
  readonly from: JsonLine | undefined;
  readonly origin: string;
  readonly summary: boolean;
  /** A user message cut with the others, in a way the log does not record: shown as unknown. */
  readonly masked: boolean;
}

export interface Bridge {
  readonly pieces: BridgePiece[];
  /** User messages it holds (an earlier bridge's pieces among them). */
  readonly users: number;
  /** The user messages were longer than Codex keeps (BRIDGE_MAX_BYTES). */
  readonly cut: boolean;
}

/** The bridge Codex sent: every user text of the live history (an earlier bridge's pieces too) and the summary. */
export function historyBridge(s: CodexState, message: string): Bridge {
  const users: { text: string; orig: ItemInfo | null; from: JsonLine | undefined; origin: string }[] = [];
  s.live.forEach((id, i) => {
    const placed = s.bridges.get(id);
    const info = s.infos.get(id);
    if (placed) {
      const orig: ItemInfo = {
        id,
        seq: s.liveSeqs[i] as number,
        role: 'user',
        userText: undefined,
        context: false,
        mapped: undefined,
        at: undefined,
      };
      users.push({ text: placed.text, orig, from: placed.from, origin: placed.summary ? BRIDGE_ORIGIN : USER_ORIGIN });
    } else if (info?.userText !== undefined) users.push({ text: info.userText, orig: info, from: info.at, origin: USER_ORIGIN });
  });
  const cut = utf8Bytes(users.map((u) => u.text).join('\n\n')) > BRIDGE_MAX_BYTES;
  const piece = (text: string, origin: string): BridgePiece => ({
    text,
    orig: null,
    from: undefined,
    origin,
    summary: false,
    masked: false,
  });
  const pieces: BridgePiece[] = [
    piece(HISTORY_BRIDGE_HEAD, HEAD_ORIGIN),
    ...(users.length > 0 ? users.map((u) => ({ ...u, summary: false, masked: cut })) : [piece('(none)', HEAD_ORIGIN)]),
    { ...piece(bridgeSummary(message), BRIDGE_ORIGIN), summary: true },
  ];
  return { pieces, users: users.length, cut };
}
