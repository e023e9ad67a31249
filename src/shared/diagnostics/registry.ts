import { BUDGET_EXCEEDED, COMPACTION_GREW_CONTEXT, RAW_TAIL_VIOLATED, TRIGGER_MISSED, WINDOW_CHANGED } from './rules/budget';
import { UNKNOWN_RECORDS } from './rules/health';
import { API_ERROR_NEAR_COMPACTION, COMPACTION_FAILURE_NOTICE } from './rules/notices';
import { SUMMARY_SECTIONS_MISSING } from './rules/sections';
import { PROMPT_UNANSWERED_INFERRED, TURN_FAILED_BEFORE_RESPONSE_INFERRED } from './rules/unanswered';
import { HALF_WRITTEN_COMPACTION, ORPHAN_COMPACTION_START, RETRY_LOOP, SILENT_FALLBACK } from './rules/lifecycle';
import {
  AUDIT_FAILED_COMMITTED, COVERAGE_GAP, COVERAGE_OVERLAP, ITEM_CUT, MAPREDUCE_LIMIT_EXCEEDED, STALE_STAGING_REUSED,
} from './rules/mapreduce';
import { MID_HISTORY_MUTATION } from './rules/mutation';
import { PAIR_SPLIT, PENDING_USER_SUMMARISED, SYSTEM_HEAD_COMPACTED } from './rules/pairs';
import { PROTECTED_TEXT_SHORTENED } from './rules/protected';
import { NO_PROVENANCE } from './rules/provenance';
import { EMPTY_SUMMARY, INCOMPLETE_SUMMARY_ACCEPTED, SUMMARY_GROWTH, SUMMARY_NOT_SMALLER } from './rules/summary';
import type { Rule } from './types';

/**
 * The rule catalog, in the order docs/diagnostics.md documents it. Ids are stable: a rule may be
 * refined, never renamed; a retired id is not reused.
 */
export const RULES: readonly Rule[] = [
  PAIR_SPLIT,
  SYSTEM_HEAD_COMPACTED,
  PROTECTED_TEXT_SHORTENED,
  INCOMPLETE_SUMMARY_ACCEPTED,
  EMPTY_SUMMARY,
  SUMMARY_NOT_SMALLER,
  COMPACTION_GREW_CONTEXT,
  SUMMARY_GROWTH,
  NO_PROVENANCE,
  COVERAGE_GAP,
  COVERAGE_OVERLAP,
  ITEM_CUT,
  STALE_STAGING_REUSED,
  BUDGET_EXCEEDED,
  RAW_TAIL_VIOLATED,
  ORPHAN_COMPACTION_START,
  MID_HISTORY_MUTATION,
  RETRY_LOOP,
  TRIGGER_MISSED,
  WINDOW_CHANGED,
  SILENT_FALLBACK,
  HALF_WRITTEN_COMPACTION,
  UNKNOWN_RECORDS,
  PENDING_USER_SUMMARISED,
  AUDIT_FAILED_COMMITTED,
  MAPREDUCE_LIMIT_EXCEEDED,
  PROMPT_UNANSWERED_INFERRED,
  API_ERROR_NEAR_COMPACTION,
  COMPACTION_FAILURE_NOTICE,
  SUMMARY_SECTIONS_MISSING,
  TURN_FAILED_BEFORE_RESPONSE_INFERRED,
];

const BY_ID = new Map(RULES.map((r) => [r.id, r]));

export function ruleById(id: string): Rule | undefined {
  return BY_ID.get(id);
}

export const RULE_IDS: readonly string[] = RULES.map((r) => r.id);
