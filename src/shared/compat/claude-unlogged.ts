import { compareVersions } from './newest';

/*
 * Two things Claude Code changes in the messages it sends by rules of its own, per version, for the
 * importer (src/main/importers/claude-code/unlogged.ts) to rebuild where the log makes them certain
 * and to name where it does not. Hand-kept: read from each version's bundled JavaScript (the
 * versions in READ below), not from runs, so the generated table (./versions.ts) does not hold it.
 *
 * Microcompact. Before each agent call the client walks the conversation since the last compaction:
 * the calls of the tools below, oldest first, except the last three, have their results cleared
 * while the results not cleared still count more than `budget` tokens — by its own estimate, a
 * result's text length / 4 rounded, 2,000 per image. It keeps the clearing only when the last reply's
 * reported usage (input + cache read + cache write + output) is at least its warning threshold (the
 * automatic compaction trigger less 20,000) and the clearing saves at least `minSaving`. A cleared
 * id stays cleared for the rest of the process; a new process (a resumed session) starts afresh.
 * The cleared result is sent as `<persisted-output>Tool result saved to: <the session's directory>/
 * tool-results/<call id>.txt …` (2.1.x) — or, in 2.0.77, that or "[Old tool result content
 * cleared]" by a server-side flag: the log holds neither the directory it ran in nor the flag.
 *
 * Todo reminder. Before each agent call, with ten assistant messages (records, not replies)
 * since the last TodoWrite call and since the last reminder, the client adds a `todo_reminder`
 * attachment, sent as a `<system-reminder>` text in the user message. The print mode (`-p`) of
 * 2.1.9 logs only user, assistant and compact_boundary messages, so neither the reminder nor a
 * microcompact is in its log; typed into an interactive session (the fidelity suite's
 * microcompact-interactive), 2.1.9 logs the microcompact but still no reminder. So a reminder is
 * named wherever the rule could fire until the log has recorded one.
 */

export interface MicrocompactRule {
  /** Tools whose results it clears. */
  readonly tools: ReadonlySet<string>;
  /** The most recent calls it never clears. */
  readonly keepRecent: number;
  /** Tokens of uncleared results it lets stand (its own estimate). */
  readonly budget: number;
  /** The least a clearing must save to be kept. */
  readonly minSaving: number;
  /** How far below the automatic compaction trigger the warning threshold is. */
  readonly belowTrigger: number;
  /** Its estimate for an image in a result. */
  readonly imageTokens: number;
  /**
   * true: read in this version's code. false: a version between versions read, whose rule is not
   * known: where it would fire, the results are only named as maybe cleared.
   */
  readonly read: boolean;
  /** When the client writes `system/microcompact_boundary`: in interactive sessions only, or never. */
  readonly logged: 'interactive' | 'never';
}

export interface TodoReminderRule {
  /** Assistant messages since the last TodoWrite call, and since the last reminder, before it fires. */
  readonly sinceWrite: number;
  readonly sinceReminder: number;
  /** true: this version's print mode is seen not to log it (so a headless log lacks it). */
  readonly unloggedHeadless: boolean;
}

const TOOLS: ReadonlySet<string> = new Set(['Read', 'Bash', 'Grep', 'Glob', 'WebSearch', 'WebFetch', 'Edit', 'Write']);

const RULE = { tools: TOOLS, keepRecent: 3, budget: 40_000, minSaving: 20_000, belowTrigger: 20_000, imageTokens: 2_000 } as const;

/** The versions whose code was read, and what it showed (the packages on npm). */
const READ: readonly { readonly version: string; readonly microcompact: 'interactive' | 'never' | null }[] = [
  { version: '2.0.77', microcompact: 'never' },
  { version: '2.1.9', microcompact: 'interactive' },
  { version: '2.1.20', microcompact: 'interactive' },
  { version: '2.1.39', microcompact: 'interactive' },
  { version: '2.1.70', microcompact: null },
  { version: '2.1.85', microcompact: null },
  { version: '2.1.97', microcompact: null },
];

/** The largest output limit of the models these versions offer: a reply's logged output count may be a partial one. */
export const MAX_OUTPUT_BOUND = 64_000;

/** Claude Code `version`'s microcompact rule; null when it has none (or no version is known). */
export function microcompactRule(version: string | undefined): MicrocompactRule | null {
  if (version === undefined) return null;
  const exact = READ.find((r) => compareVersions(r.version, version) === 0);
  if (exact) return exact.microcompact === null ? null : { ...RULE, read: true, logged: exact.microcompact };
  const below = READ.filter((r) => (compareVersions(r.version, version) ?? 1) < 0).at(-1);
  const above = READ.find((r) => (compareVersions(r.version, version) ?? -1) > 0);
  // Newer than a version read without the rule: none (2.1.197 and 2.1.332 have none either).
  if (below && below.microcompact === null) return null;
  // Older than every version read, or between versions read: it may clear; whether it logs the
  // clearing is known only between two versions that log it interactively.
  const logged = below?.microcompact === 'interactive' && above?.microcompact !== 'never' ? 'interactive' : 'never';
  return { ...RULE, read: false, logged };
}

/** Claude Code `version`'s todo reminder rule, where its print mode is known or may be unlogged; null otherwise. */
export function todoReminderRule(version: string | undefined): TodoReminderRule | null {
  if (version === undefined) return null;
  // 2.1.97 logs it headless (a record with no rendered text); 2.1.197 sends a task reminder instead.
  if ((compareVersions(version, '2.1.97') ?? 0) >= 0) return null;
  return { sinceWrite: 10, sinceReminder: 10, unloggedHeadless: compareVersions(version, '2.1.9') === 0 };
}
