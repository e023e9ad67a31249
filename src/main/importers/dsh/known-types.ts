/**
 * The DSH event vocabulary. `KNOWN_AT_B150A551` is `KNOWN_SESSION_EVENT_TYPES` of
 * deepseek-ai/deepseek-harness @ b150a551 (packages/core/session/src/known-event-types.ts), the
 * 48 types that build understands. DeepSeek Harness describes a newer protocol (pinned at ddefc45) that
 * adds `system/message` and `compaction/summary-error`; they are listed separately because their
 * payloads are known only from prose.
 */

export const KNOWN_AT_B150A551: readonly string[] = [
  'agent-preset/selected',
  'agent/inbox/spliced',
  'approval/asked',
  'approval/decided',
  'approval/policy',
  'assistant/chunk',
  'assistant/message',
  'command/done',
  'command/run',
  'compaction/end',
  'compaction/prune',
  'compaction/start',
  'compaction/summary',
  'feedback/record',
  'goal/change',
  'hook/invoked',
  'hook/result',
  'llm/retry',
  'llm/retry-started',
  'permission/preset',
  'plan/mode',
  'request/context',
  'request/header',
  'sandbox/mode',
  'schedule/change',
  'session/end-seed',
  'session/title',
  'session/title-llm-request',
  'step/end',
  'step/start',
  'subagent/descriptor',
  'team/member',
  'team/message/delivered',
  'team/message/queued',
  'team/task',
  'todo/write',
  'tool-workflow/agent-end',
  'tool-workflow/agent-start',
  'tool-workflow/run-end',
  'tool-workflow/run-start',
  'tool/call',
  'tool/code-dispatch',
  'tool/code-dispatch-start',
  'tool/result',
  'turn/end',
  'turn/start',
  'user/message',
  'web/deepseek-search-llm-request',
];

/** Types of the newer protocol described by DeepSeek Harness, not in the b150a551 catalog. */
export const KNOWN_FROM_SEED_004: readonly string[] = ['system/message', 'compaction/summary-error'];

export const KNOWN_TYPES: ReadonlySet<string> = new Set([...KNOWN_AT_B150A551, ...KNOWN_FROM_SEED_004]);

/** Events that produce model messages and may carry `surfaceOp` / `sourceEventSeqs`. */
export const SURFACE_TYPES: ReadonlySet<string> = new Set(['user/message', 'assistant/message', 'tool/result', 'system/message']);

/** Packed chunk rows: a storage encoding of runs of `assistant/chunk` deltas (chunk-rows.ts). */
export const PACKED_ROW_TYPES: ReadonlySet<string> = new Set(['text-chunks', 'reasoning-chunks', 'tool-call-chunks']);

/** The header line's tag. */
export const HEADER_TYPE = 'session';

/** The on-disk format version this importer reads (SESSION_FORMAT_VERSION). */
export const FORMAT_VERSION = 0;

/**
 * Headless `--output-format stream-json` lines: each session event is wrapped as
 * `{type:"session_event", sessionId, event}`; the run ends with a `result` line.
 */
export const STREAM_EVENT_TYPE = 'session_event';
export const STREAM_OTHER_TYPES: ReadonlySet<string> = new Set(['result']);
