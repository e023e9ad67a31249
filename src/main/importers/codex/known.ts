/**
 * What this importer knows of the Codex CLI rollout format: record types, payload types, and the
 * constants of Codex's own rules. Sources: openai/codex `codex-rs/protocol/src/protocol.rs`
 * (`RolloutItem`, `EventMsg`, `CompactedItem`), `codex-rs/protocol/src/models.rs` (`ResponseItem`),
 * `codex-rs/core/src/compact.rs`, `compact_remote.rs`, and the real rollouts in `fixtures/codex/`
 * (cli_version 0.104.0-alpha.1).
 */

/** `RolloutLine.type` values (serde tag of `RolloutItem`). */
export const RECORD_TYPES: ReadonlySet<string> = new Set(['session_meta', 'response_item', 'turn_context', 'event_msg', 'compacted']);

/** `ResponseItem` types. `other` is serde's catch-all for what the writer did not know: not listed. */
export const RESPONSE_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'image_generation_call',
  'tool_search_call',
  'tool_search_output',
  'compaction',
  'compaction_summary',
  'ghost_snapshot',
]);

/**
 * `EventMsg` types (snake_case), current and former names. None of them changes the model's
 * history except `thread_rolled_back`; `token_count`, `task_*`/`turn_*` and `context_compacted`
 * drive requests, turns and compactions.
 */
export const EVENT_MSG_TYPES: ReadonlySet<string> = new Set([
  'error',
  'warning',
  'context_compacted',
  'task_started',
  'task_complete',
  'turn_started',
  'turn_complete',
  'token_count',
  'agent_message',
  'user_message',
  'agent_message_delta',
  'agent_reasoning',
  'agent_reasoning_delta',
  'agent_reasoning_raw_content',
  'agent_reasoning_raw_content_delta',
  'agent_reasoning_section_break',
  'session_configured',
  'mcp_startup_update',
  'mcp_startup_complete',
  'mcp_tool_call_begin',
  'mcp_tool_call_end',
  'web_search_begin',
  'web_search_end',
  'exec_command_begin',
  'exec_command_output_delta',
  'terminal_interaction',
  'exec_command_end',
  'view_image_tool_call',
  'exec_approval_request',
  'elicitation_request',
  'apply_patch_approval_request',
  'request_user_input',
  'dynamic_tool_call_request',
  'deprecation_notice',
  'background_event',
  'undo_started',
  'undo_completed',
  'stream_error',
  'patch_apply_begin',
  'patch_apply_end',
  'turn_diff',
  'get_history_entry_response',
  'mcp_list_tools_response',
  'list_custom_prompts_response',
  'list_skills_response',
  'list_remote_skills_response',
  'remote_skill_downloaded',
  'skills_update_available',
  'plan_update',
  'plan_delta',
  'turn_aborted',
  'shutdown_complete',
  'entered_review_mode',
  'exited_review_mode',
  'raw_response_item',
  'item_started',
  'item_completed',
  'agent_message_content_delta',
  'reasoning_content_delta',
  'reasoning_raw_content_delta',
  'thread_rolled_back',
  'thread_name_updated',
  'conversation_path',
  'model_reroute',
  'collab_agent_spawn_begin',
  'collab_agent_spawn_end',
  'collab_agent_interaction_begin',
  'collab_agent_interaction_end',
  'collab_waiting_begin',
  'collab_waiting_end',
  'collab_close_begin',
  'collab_close_end',
  'collab_resume_begin',
  'collab_resume_end',
]);

/**
 * `compact/summary_prefix.md`: the first sentence of the user message that carries a local
 * compaction's summary (`SUMMARY_PREFIX + "\n" + summary`). Matched as a prefix. One space in
 * "to assist": that is what Codex 0.59, 0.118, 0.169 and 0.171 log and send (fixtures/fidelity),
 * though a revision of the template has two there.
 */
export const SUMMARY_PREFIX =
  'Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:';
export const SUMMARY_PREFIX_HEAD = 'Another language model started to solve this problem and produced a summary of its thinking process.';

/**
 * `compact/history_bridge.md` of Codex 0.47 (as it sent it to the mock): the one user message a
 * local compaction leaves after the initial context, `HISTORY_BRIDGE_HEAD + "\n\n" + the user
 * messages joined by "\n\n" + "\n\n" + HISTORY_BRIDGE_SUMMARY + "\n\n" + summary`.
 */
export const HISTORY_BRIDGE_HEAD =
  'You were originally given instructions from a user over one or more turns. Here were the user messages:';
export const HISTORY_BRIDGE_SUMMARY =
  'Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:';

/** `COMPACT_USER_MESSAGE_MAX_TOKENS`: the budget of retained user messages in a local compaction. */
export const COMPACT_USER_MESSAGE_MAX_TOKENS = 20_000;
/** Codex's `approx_token_count`: UTF-8 bytes / 4, rounded up. */
export const APPROX_BYTES_PER_TOKEN = 4;

/**
 * Openings of the user messages Codex injects as context rather than as a user turn
 * (`is_contextual_user_fragment`: AGENTS.md / user instructions, environment context, skills,
 * `!cmd` shell commands, turn-aborted notes, subagent notifications). Compared lower-cased after
 * leading whitespace.
 */
export const CONTEXT_PREFIXES: readonly string[] = [
  '# agents.md instructions for',
  '<user_instructions>',
  '<environment_context>',
  '<skill>',
  '<user_shell_command>',
  '<turn_aborted>',
  '<subagent_notification>',
  '<subagents>',
];
