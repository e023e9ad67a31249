/**
 * What this importer knows of the Claude Code transcript format: record types, `system` subtypes,
 * top-level fields and content block types. Anything else is counted per file and reported
 * (UNKNOWN_RECORDS, UNKNOWN_FIELDS), so a format change shows up as a diagnostic, not as silence.
 * Sources: real 2.1.38/2.1.39 transcripts (fixtures/claude-code), third-party descriptions of the
 * format, and the 2.1.332 record names we were told of but have no sample of yet (see importer.ts).
 */

/**
 * The newest version seen (the real 2.1.38/2.1.39 samples) that writes no `api-request` records.
 * Messages of such versions are never named by a request hash, so they are not hashed: hashing
 * (canonical JSON + sha256 of every message) is about a fifth of the import time of a large log.
 */
export const LAST_VERSION_WITHOUT_API_REQUESTS = '2.1.39';

export const KNOWN_TYPES: ReadonlySet<string> = new Set([
  'user',
  'assistant',
  'system',
  'progress',
  'file-history-snapshot',
  'queue-operation',
  'summary',
  'custom-title',
  'tag',
  'last-prompt',
  'agent-name',
  'agent-color',
  'pr-link',
  // The session's permission mode (default, plan, acceptEdits…), written whenever it is set: a
  // setting of the client, not a message, so it changes nothing the model sees.
  'permission-mode',
  // The session title the client generates itself (2.1.12x–2.1.15x), written again as it changes:
  // shown in the session list, never sent to the model.
  'ai-title',
  // 2.1.332 (named in the format notes; no sample yet).
  'attachment',
  'api-request-shape',
  'api-request-blob',
  'api-request',
  'cost-state',
  'mode',
  'tools-used',
  'atis-latch',
]);

export const KNOWN_SYSTEM_SUBTYPES: ReadonlySet<string> = new Set([
  'compact_boundary',
  'microcompact_boundary',
  'turn_duration',
  'stop_hook_summary',
  'local_command',
  'api_error',
  'informational',
  'bridge_status',
  'thinking',
  'memory_saved',
  'api_metrics',
  'agents_killed',
  // 2.1.12x+: the recap the client shows when the user comes back to an idle session ("disable
  // recaps in /config"): written for the terminal, not a message of the conversation.
  'away_summary',
]);

/** Top-level fields seen in real transcripts or documented for the record types above. */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  // envelope
  'type',
  'subtype',
  'uuid',
  'parentUuid',
  'logicalParentUuid',
  'isSidechain',
  'userType',
  'cwd',
  'sessionId',
  'version',
  'gitBranch',
  'slug',
  'timestamp',
  'agentId',
  'teamName',
  'agentName',
  'entrypoint',
  // user / assistant
  'message',
  'requestId',
  'toolUseResult',
  'sourceToolAssistantUUID',
  'sourceToolUseID',
  'isMeta',
  'thinkingMetadata',
  'todos',
  'permissionMode',
  'isCompactSummary',
  'isVisibleInTranscriptOnly',
  'isApiErrorMessage',
  'error',
  'imagePasteIds',
  'planContent',
  'mcpMeta',
  // Known and ignored: an API error record's HTTP status and the raw error body it came with
  // (2.1.9x); the record's text already says what the error was.
  'apiErrorStatus',
  'errorDetails',
  // Known and ignored: `promptId` names the human prompt a record belongs to (every record of one
  // turn shares it); the turn's structure already comes from the uuid/parentUuid chain.
  'promptId',
  // progress
  'data',
  'toolUseID',
  'parentToolUseID',
  // system
  'content',
  'level',
  'compactMetadata',
  'microcompactMetadata',
  'hookCount',
  'hookInfos',
  'hookErrors',
  'preventedContinuation',
  'stopReason',
  'hasOutput',
  'durationMs',
  'cause',
  'retryInMs',
  'retryAttempt',
  'maxRetries',
  // `system/turn_duration`: how many messages the turn wrote (read into the record's summary).
  'messageCount',
  // file-history-snapshot, queue-operation, summary, titles
  'messageId',
  'snapshot',
  'isSnapshotUpdate',
  'operation',
  'summary',
  'leafUuid',
  'customTitle',
  'tag',
  'lastPrompt',
  'aiTitle',
  // pr-link: the pull request the session opened.
  'prNumber',
  'prUrl',
  'prRepository',
  // Known and ignored (2.1.12x+): which subagent type or skill wrote an assistant record, and where a
  // user record came from (`{kind: "task-notification"}`); the records' content says what was sent.
  'attributionAgent',
  'attributionSkill',
  'origin',
  // 2.1.16x: how a user prompt was entered ("typed"); the prompt's text is the message.
  'promptSource',
  // 2.1.332 records (named only)
  'attachment',
  'shapeHash',
  'shape',
  'hash',
  'id',
  'querySource',
  'params',
  'keep',
  'base',
  'tail',
  'mode',
]);

/** Content block types with a canonical mapping, or kept as opaque content on purpose. */
export const KNOWN_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'text',
  'image',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'document',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'search_result',
  'tool_reference',
]);

/** Tool names whose calls spawn a subagent (`subagents/agent-<id>.jsonl`). */
export const SPAWN_TOOLS: ReadonlySet<string> = new Set(['Task', 'Agent']);
