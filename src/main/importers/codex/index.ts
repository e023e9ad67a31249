import type { EventBody } from '../../../shared/model/event';
import type { FileImport, FileInfo, ImportSink, Importer } from '../types';
import { CodexFileImport } from './importer';
import { rehydrateCodex } from './rehydrate';
import { sniffCodex } from './sniff';

/**
 * OpenAI Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`, one
 * `{timestamp, type, payload}` line per `RolloutItem` (checked against Codex
 * 0.104.0-alpha.1 rollouts and the Codex source). Mapping decisions:
 *
 * SESSION. `session_meta` → `session` {id, harness "codex", harnessVersion = cli_version, cwd,
 * title = agent_nickname (agent_role), parent}: `forked_from_id` → parent {origin "fork"},
 * `source.subagent.thread_spawn.parent_thread_id` → parent {origin "subagent"} (the parent's seq
 * is not known from this file). Then a `header`: system = `base_instructions.text` (from 0.169
 * less one line it does not send: ./compaction.ts) as one text block; without it → null (Codex
 * then sent its built-in prompt, which it does not log; an older rollout's `instructions` are the
 * user's AGENTS.md, sent as a user message the rollout logs). tools = null: rollouts do
 * not record the tool schemas sent (`dynamic_tools` lists only the client's extra tools). route
 * {provider: model_provider}. A cli_version newer than the newest Codex verified on the wire
 * (src/shared/compat/versions.ts) gets a CODEX_VERSION warning.
 *
 * ROUTE. `turn_context` (written per sampling round in 0.104) → `header` {route {model, reasoning:
 * effort}} when either changed, else a `record`. The window comes from `model_context_window`
 * (task_started, token_count) as a `header` when it changes. Its user/developer instructions are
 * not items: Codex records them as `response_item` messages, which are mapped as such.
 *
 * ITEMS. Each `response_item` is one item (id `L<line>`), appended: message user → user,
 * assistant → assistant (origin = `phase`), developer → system with origin "developer" (the
 * Responses API's developer role; origin keeps it for the wire shape), system → system;
 * input_text/output_text → text, input_image → image (media type and size from a data URL).
 * User messages Codex injects as context (AGENTS.md, `<environment_context>`, skills, …; by their
 * opening) and every message of the block logged right before `task_started` (the turn's context)
 * are `meta` with origin "context". reasoning → assistant reasoning blocks (summary and content
 * texts; `encrypted_content` → one redacted block). function_call / custom_tool_call /
 * local_shell_call / tool_search_call / web_search_call → assistant item with a tool_call block
 * (input = arguments / input / JSON of the action, as written; a hosted web search has no logged
 * result). *_output → role "tool" item with a tool_result block (string, content parts, or
 * {content, success:false} → isError). image_generation_call → image. ghost_snapshot → op "log"
 * (never sent). A `compaction` item outside a `compacted` record → opaque. Unknown item types →
 * `unknown` events, counted.
 *
 * REQUESTS. Codex logs no request. A model call's output items are followed by a token_count with
 * new usage; tool outputs come after. The request is emitted right before the call's first output
 * item (so its view is the history before the call), the response at the token_count. A
 * token_count that repeats the previous totals (Codex re-sends it after each turn_context), that
 * has no info (rate limits only) or that is Codex's own re-estimate (every count 0 but
 * total_tokens) is a `record`. Usage: `last_token_usage` → input = input_tokens −
 * cached_input_tokens, cacheRead = cached_input_tokens, output, reasoning =
 * reasoning_output_tokens, context = input_tokens (OpenAI counts cached tokens inside input).
 * New usage with no output item logged before it becomes a request + response at its line (a
 * CODEX_USAGE_WITHOUT_OUTPUT info), unless a `compacted` follows — right after it, or after Codex's
 * re-estimate of the new history (0.77 writes that before `compacted`) — then it is the summarizer's.
 * Codex logs no finish reason; a call cut by turn_aborted gets finish cancelled.
 *
 * TURNS AND RESUMES. task_started / task_complete (turn_started / turn_complete) → lifecycle
 * turn-start / turn-end (one ending with an `error` → a record `event_msg/task_complete` "error: …"
 * first); turn_aborted → a record and turn-end. Resume appends to the same file
 * without a new session_meta; Codex 0.104 then re-injects the full initial context right before
 * the next turn. Such a block (≥2 developer messages, or a developer and a user message) after an
 * ended turn with no compaction since → lifecycle `resume` before it. A repeated session_meta of
 * the same id → resume too. thread_rolled_back {num_turns} → `drop` of the last num_turns user
 * turns (Codex's `drop_last_n_user_turns`). Other event_msg types → records; unknown ones →
 * `unknown`, counted.
 *
 * COMPACTION. `compacted` → compaction/start {id "cmp:L<line>", trigger auto/manual/unknown from
 * its place in the turn, strategy remote/local, preTokens = the last call's
 * last_token_usage.total_tokens, source = the whole live history}, a summarizer `request`
 * (purpose compaction, input = that history, instruction null: not logged) and its `response`
 * (usage only when a local compaction logged it), compaction/summary (the `message` text, or the
 * opaque block of the encrypted `compaction` item), then the new history, which replaces the
 * whole old one. Its summary item — the `compaction` item (remote, an `opaque` block), else the
 * user message starting with SUMMARY_PREFIX (local) — is a `checkpoint` covering every old item
 * (sources: start, summary, every old item's event), appended; every other replacement item is
 * placed around it in order (`insert` before it, or appended after it): a copy whose content
 * matches an earlier item (fingerprint of role and content parts, or call id) is `reinjected` of
 * it (the newest match still on the old surface first), anything else is a plain item with origin
 * "replacement_history". Without a summary item the old history is dropped (reason compaction).
 * Without `replacement_history` (older Codex) the new history is rebuilt by Codex's rule
 * (./compaction.ts; a CODEX_LEGACY_COMPACTION info says so, with its 4-bytes-per-token
 * estimate); before 0.59, by the older rule of one "history bridge" message (./history-bridge.ts).
 * A user message Codex cut to fit (the oldest kept, or a bridge's beyond its bytes) is the whole
 * message from its own line, masked by the harness without a reference: where Codex cut it is not
 * recorded, so the view shows it as unknown.
 * The initial context it starts with is the block logged before the turn, or, where no turn
 * start is logged, the context messages that open the session. compaction/end {committed, postTokens = Codex's own re-estimate around the line
 * when it fits the window; one over the window is not used and is reported as
 * CODEX_TOKEN_ESTIMATE}. event_msg context_compacted → record.
 *
 * CODEX 0.171 SUMMARIZER. 0.171 logs a local summarizer's reply as an assistant message right
 * before `compacted` (then its token_usage_record and token_count). An assistant message that
 * would start a model call is held back with the usage lines after it; when the next line is a
 * `compacted` whose summary is its text (`message`, or the SUMMARY_PREFIX user message of
 * `replacement_history`, or `metadata.compaction_output`), it is the summarizer's output: an item
 * with op "log" inside the bracket, after the summarizer request, whose response takes the
 * token_usage_record's usage. Otherwise the lines are read as usual. Pre-turn compaction runs
 * before the turn's user message is logged, so such a compaction at the start of a turn gets
 * trigger "unknown". A FAILED compaction (summary cut at the output limit) leaves only a
 * token_usage_record at the very start of a turn (before its user message, where no agent call
 * can be) and a task_complete with an `error`: that becomes compaction/start, a summarizer request
 * (input = the live history, instruction null), its response (usage of the record; finish length
 * when the error says max_output_tokens; the error), compaction/summary-error and compaction/end
 * {failed}; the history stays. Failures that log nothing (503 overloaded on every attempt) are
 * not shown: the log has no trace of them.
 * token_usage_record → record. Its `usage` (one response's, exact) is kept on the open call: a
 * call that no token_count closes (a turn aborted while a tool ran, a log cut short) gets it,
 * and a token_count that still reports the same response later is not a new call.
 *
 * HEALTH. Bad input never throws: a record without its payload or required fields is an error
 * diagnostic with its line, kept as a `record`; unknown record and payload types are `unknown`
 * events and one UNKNOWN_RECORDS warning per type and file.
 */
export const codexImporter: Importer = {
  id: 'codex',
  label: 'Codex CLI rollout',
  sniff(first: readonly Record<string, unknown>[], path: string): number {
    return sniffCodex(first, path);
  },
  open(file: FileInfo, sink: ImportSink): FileImport {
    return new CodexFileImport(sink, file.path);
  },
  rehydrate(event: EventBody, line: Record<string, unknown>): EventBody | null {
    return rehydrateCodex(event, line);
  },
};
