import { compareVersions } from '../../shared/compat/newest';
import type { VerifiedVersion } from '../../shared/compat/types';
import { VERIFIED_VERSIONS } from '../../shared/compat/versions';

/*
 * Facts of Codex's rollout dialects that both the importer (src/main/importers/codex) and the
 * fast listing (src/main/discovery/scan-codex.ts) read: kept apart from both.
 *
 * Where a rollout writes a model call's usage. Older Codex recorded each sampling round's items in
 * one batch after the round (its output items and the tool outputs they led to), after the
 * `token_count` of the call: usage first. Later versions record output items as they complete and
 * the usage after them. The version table (src/shared/compat/versions.ts, from the fidelity suite's
 * runs on the wire) says which versions do which; real rollouts of the corpus agree (0.34–0.63
 * first, 0.104 after). A version between two verified ones that differ, or none, is read from the
 * rollout itself: in the first model call, output items before its usage report, or the report first.
 */

export type UsageOrder = 'before-output' | 'after-output';

const orderOf = (v: VerifiedVersion): UsageOrder | null => (v.usage === 'before-output' || v.usage === 'after-output' ? v.usage : null);

/** The order a version is known to write, from the verified versions around it, or null: read it from the rollout. */
export function knownUsageOrder(version: string | undefined, table: readonly VerifiedVersion[] = VERIFIED_VERSIONS): UsageOrder | null {
  if (version === undefined || compareVersions(version, '0.0.0') === null) return null;
  let below: { v: string; order: UsageOrder } | null = null;
  let above: { v: string; order: UsageOrder } | null = null;
  for (const row of table) {
    const order = row.client === 'codex' ? orderOf(row) : null;
    if (order === null) continue;
    const d = compareVersions(row.version, version) ?? 0;
    if (d === 0) return order;
    if (d < 0 && (below === null || (compareVersions(row.version, below.v) ?? 0) > 0)) below = { v: row.version, order };
    if (d > 0 && (above === null || (compareVersions(row.version, above.v) ?? 0) < 0)) above = { v: row.version, order };
  }
  if (below && above) return below.order === above.order ? below.order : null;
  return (below ?? above)?.order ?? null;
}

/** Commentary Codex logs between a usage report written first and the output items it belongs to. */
export const BETWEEN_USAGE_AND_OUTPUT: ReadonlySet<string> = new Set([
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'agent_reasoning_section_break',
  'agent_message',
  'token_count',
]);

/**
 * Whether a record leaves a usage report written before its call's output items waiting for them:
 * an output item (it opens the call), an item never sent (a ghost snapshot), commentary. An input
 * (a user message, a tool output) or a turn boundary says the call's output is not in the log.
 * `ptype` is the payload's type, `role` a message's role.
 */
export function awaitsOutput(recordType: string, ptype: string | undefined, role: string | undefined): boolean {
  if (ptype === undefined) return false;
  if (recordType === 'event_msg') return BETWEEN_USAGE_AND_OUTPUT.has(ptype);
  if (recordType !== 'response_item') return false;
  if (ptype === 'message') return role === 'assistant';
  return !ptype.endsWith('_output');
}
