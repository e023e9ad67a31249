/*
 * The prose of docs/fidelity.md: what the suite established about each client's log by running
 * the real clients against the mock provider (fixtures/fidelity/logs). Kept here, next to the code
 * that measured it, so that it is reviewed and updated with it.
 */

export const NOTES = `
## Normalisations

Both sides are brought to one shape before comparing (src/main/wire/normalize.ts). Each of these
is a difference of representation only:

- Message boundaries are dropped: every part carries its role. Consecutive messages of one role are
  one turn to the model, and Claude Code merges consecutive user records on the wire.
- A string \`content\` is one text block, and a run of text parts of one role is compared as its
  texts joined by a blank line. Claude Code 2.1.332 sends a message whose content is one text block
  without a cache breakpoint as a plain string.
- \`cache_control\` breakpoints, output item ids and statuses, and thinking signatures are left out.
  So are per-message control fields such as \`output_config\` on a system message.
- Anthropic tool_result blocks and Responses \`function_call_output\` items are parts of role \`tool\`.
  Responses \`developer\` messages are role \`system\`.
- Tool-call inputs are compared as canonical JSON for Anthropic, whose wire carries an object. For
  Responses and Chat Completions they are compared as the exact argument string.
- Chat Completions (OpenCode): the leading \`system\` messages are the system prompt, \`tool\` messages
  are parts of role \`tool\`, an assistant message's \`tool_calls\` are its tool calls and its
  \`reasoning_content\` a reasoning part.
- Claude Code adds \`x-anthropic-billing-header: cc_version=…; cc_entrypoint=…;\` as the first system
  block of every request. No log records it, so it is left out, and every report row notes that.
- Claude Code before its \`api-request\` records (2.0.77 to 2.1.197 here) opens the first user message
  of every request with \`<system-reminder>\` blocks the log does not hold: the context block ("As
  you answer the user's questions, you can use the following context: # currentDate …", CLAUDE.md)
  and, in 2.1.97, the skills listing. 2.1.197 sends the agent-types and skills listings instead as a
  \`system\` message of its own after the prompt. The view marks each of these as unknown at its
  place (src/main/dialects/claude-unrecorded.ts): it stands for the wire's user and system texts
  there, none included, and for the start of the prompt up to a blank line. The parts around it
  are compared in place, so such a request is **unknown**, never a match, and a real difference
  elsewhere is still a mismatch.
- Gemini requests (src/main/wire/gemini.ts): \`systemInstruction\` is the system prompt, \`model\` turns
  the assistant's, a \`functionResponse\` part a part of role \`tool\`; function-call \`args\` are compared
  as canonical JSON, and call ids are not compared (the API pairs a response with its call by name
  and order; Gemini CLI makes the ids up). Before 0.44 the context turn that opens every chat is not
  in the file: unknown in place, as Claude Code's context block. A history the client may have
  replaced without logging it (a request's unlogged \`history\` change) is unknown up to a user turn:
  the parts from there on are compared in place.

## What each log records, and what only the wire shows

### Claude Code 2.1.332

Files: \`$HOME/.claude/projects/<cwd with / and . as ->/<sessionId>.jsonl\`, one file per session.
\`--resume\` appends to the same file. None of these scenarios wrote a subagent file: the compaction
summarizer is **not** logged as \`subagents/agent-acompact-*.jsonl\` (2.1.39 logged it that way).

Record types seen: \`user\`, \`assistant\`, \`attachment\`, \`system\` (subtypes \`compact_boundary\` and
\`local_command\`), \`api-request-shape\`, \`api-request-blob\`, \`api-request\`, \`queue-operation\`,
\`last-prompt\`, \`atis-latch\`, \`tools-used\`, \`cost-state\`, \`mode\`. New envelope fields: \`promptId\`,
\`promptSource\`, \`sentAtMs\`, \`rowSource\`, \`turnOrigin\`, \`turnPosition\`, and \`entrypoint\`
(\`sdk-cli\`). Assistant lines add \`apiBlockIndex\`, \`requestRef\`, \`requestedModel\`, \`effort\` and
\`madeBy\`, and \`stop_reason\` is now filled in.

- **\`attachment\`** \`{attachment: {type, …}, rendered: [{content}], renderedRole}\`. Types seen:
  environment, model, deferred_tools_delta, agent_listing_delta, skill_listing, session_context,
  date, remote_session_change, prompt_snapshot. \`rendered\` is the text the model gets and
  \`renderedRole\` is \`system\` or \`user\`. \`prompt_snapshot\` holds the system prompt parts and is not
  sent as a message. The attachments of a turn reach the wire in two places: as a **mid-conversation
  \`system\` message** (the Messages API now takes \`role: "system"\` inside \`messages\`), and as a
  \`<system-reminder>\` text block merged *before* the user's prompt.
- **\`api-request-shape\`** \`{shapeHash, shape: {system, tools}}\` is the system prompt (text blocks) and
  the tool schemas, written when they change. It matches the wire except for the billing-header block.
- **\`api-request\`** is written once per agent model call: \`{id, querySource, shapeHash, params: {model,
  betas, max_tokens, thinking, context_management, output_config}, base, keep, tail[], cacheControl[],
  requestDigest, thread, echoWireToolInputs}\`.
  - **keep/base/tail.** The messages are the first \`keep\` messages of the api-request \`base\`,
    followed by the messages named by the hashes in \`tail\`. Without \`base\`, \`keep\` is 0 and the
    whole list is in \`tail\`. A follow-up call in the same turn has \`base\` = the previous call, \`keep\`
    = all its messages, and \`tail\` = the new assistant message plus the tool results. The first call
    of a resumed turn, and the first after a compaction, start again from \`base\` null with every
    hash in \`tail\`.
  - **Hashes.** A hash is sha256 of the canonical JSON of the message (keys sorted, no spaces, UTF-8),
    with a string content written as one text block. Extra fields such as \`output_config\` are
    included.
  - **Resolving hashes.** A hash resolves to one of:
    - an \`api-request-blob {hash, message}\`. These are messages no transcript record holds verbatim:
      the prompt merged with its reminders, attachments rendered as a system message, the compact
      summary with its reminders, and an empty system message that carries \`output_config\`;
    - a \`user\` record's message;
    - the \`assistant\` records that share one \`message.id\`, their content concatenated in file order;
    - a run of consecutive tool-result \`user\` records (parallel tool calls), merged into one message.
  - **Other fields.** \`thread\` was \`{type: "none"}\` and \`echoWireToolInputs\` false in every run.
    \`requestDigest\` is a 64-hex digest. It is not the sha256 of the body sent: we tried the body with
    and without the billing block and \`metadata\`, and none matched.
  - **cacheControl.** \`cacheControl\` lists the cache breakpoints by path into the logged request
    (\`["system", i]\` counts the shape's blocks).
  - **Verified.** \`test/fidelity/claude-requests.ts\` rebuilds every api-request of every
    fixture, and test/fidelity/fixtures.test.ts checks the result against the captured wire request.
    **All agent requests rebuild exactly.** The only differences are the billing header and the
    string/block representation.
- **Compaction.** \`system/compact_boundary\` now carries \`compactMetadata {trigger, preTokens,
  durationMs, preservedSegment {headUuid, anchorUuid, tailUuid}, preservedMessages {anchorUuid,
  uuids}}\`. The last assistant message is preserved and re-sent after the summary. The
  \`isCompactSummary\` user line follows the boundary, and its wire form (a blob) adds
  \`<tools-used-before-summary>\` and continuation instructions. After \`/compact\` the log also has the
  \`<local-command-caveat>\`, \`<command-name>\` and \`<local-command-stdout>\` user lines. These are sent
  in the next request.
- **Only the wire shows the summarizer.** Neither a manual \`/compact\` nor an automatic compaction
  writes an api-request, a blob or a subagent file for the summarizer call. That call is the
  conversation so far (same system prompt and tools, \`max_tokens\` 128000) plus a user message ending
  with "REMINDER: Do NOT call any tools. … an <analysis> block followed by a <summary> block".
  So nothing in the log shows:
  - **HTTP 500 retries** (compact-http-500): two failed summarizer attempts, then the one that
    succeeded. The log shows only the boundary and the summary.
  - **529 overloaded on every attempt** (compact-overloaded): 3 attempts with
    \`CLAUDE_CODE_MAX_RETRIES=2\`. The compaction failed. The log has a \`system/local_command\` line
    (\`commandOutcome.kind: "failed"\`, the error text) and no boundary.
  - **A summary cut at max_tokens** (compact-max-tokens). The summarizer reply stopped at
    \`max_tokens\`. Claude Code then sent a continuation request, with the cut reply as an assistant
    turn and "Output token limit hit. Resume directly …". A second summarizer call (with an added
    "For this reply only …" paragraph) was cut again. The compaction was then **committed** with the
    continuation's reply as the summary. The log holds that summary and the boundary. The two cut
    attempts and the continuation request appear only on the wire.
- **Automatic compaction** (auto-compact): reporting \`cache_read_input_tokens\` near the 1 M window of
  claude-opus-5-5 made the next turn compact first. \`trigger: "auto"\`; \`preTokens\` 988,032 against a last
  reported input + cache read + cache write + output of 988,020.

### Codex 0.171.0

Files: \`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl\`. \`exec resume\` appends to
the same file. Every line has a new \`ordinal\` field next to \`timestamp\`, \`type\` and \`payload\`.
Codex also keeps SQLite files in \`$CODEX_HOME\` (state, thread_history, memories, goals), which the
suite does not read.

Record types seen:
- \`session_meta\`, now with \`session_id\`, \`account_scoped\`, \`runtime_workspace_roots\`,
  \`thread_source\`, \`history_mode: "paginated"\`, \`context_window {window_id}\`, and \`base_instructions
  {text, provenance {type: "model", model}}\`.
- \`response_item\`, now with \`internal_chat_message_metadata_passthrough\` and \`metadata\`.
- \`turn_context\`.
- **new**: \`world_state {full, state: {agents_md, collaboration_mode, environments, model, model_catalog,
  permissions, skills, tools, …}}\`.
- **new**: \`token_usage_record {response_id, usage, …}\`, one per response, **failed compaction
  attempts included**.
- \`event_msg\` of types task_started, task_complete, token_count, **item_completed** and
  **thread_settings_applied** (the last two are new).
- \`compacted {message, replacement_history, replacement_history_metadata, retained_context,
  window_number, first_window_id, previous_window_id, window_id, compaction_response_id,
  latest_token_usage_record, resume_metadata}\`. \`event_msg/context_compacted\` is no longer written.

- **System prompt.** The wire has no \`instructions\`. The base instructions go as the first
  \`developer\` message of \`input\`, then the skills developer message, then the environment context.
  The log has the base instructions only in \`session_meta.base_instructions.text\`, and **that text
  differs from what is sent**: it has one more line, "- If you create a checklist or task list, you
  update item statuses incrementally …", which 0.171 drops from the request (seen in every Codex
  scenario). A view that takes \`base_instructions\` as the system prompt is therefore off by that line.
- **Tools.** Tool schemas are not in the rollout (\`world_state.state.tools\` does not hold the
  schemas sent), so they are unknown. The wire sends exec_command, write_stdin, request_user_input,
  apply_patch (custom), view_image, get_goal, create_goal, update_goal, tool_search and web_search.
- **Tool calls** (\`exec_command\` with \`{cmd}\`) and their outputs are logged verbatim. \`exec resume\`
  re-sends the whole history.
- **Local compaction.** The summarizer call is the history plus a user message "You are performing a
  CONTEXT CHECKPOINT COMPACTION. …". That message is not logged, and the wire marks the call with
  \`x-codex-turn-metadata.request_kind: "compaction"\`. The summarizer's reply **is** logged, as an
  ordinary assistant \`response_item\` just before \`compacted\`. An importer must take that item as the
  compaction's output, not as an agent reply. The next request is the base instructions followed by
  \`replacement_history\`: the skills developer message, the environment context, the user messages,
  and the summary with its prefix. The new user message comes after that.
- **Failed compactions leave almost nothing.** When the summarizer reply ends \`response.incomplete\`
  (max_output_tokens), Codex fails the turn ("Failed to run pre-sampling compact") without retrying.
  The log keeps the turn's user message and a \`token_usage_record\` of the failed call, but no error
  record and no \`compacted\`. Each later turn tries again and fails the same way. On 503 overloaded,
  Codex retries (\`request_max_retries=2\`: 3 attempts per turn) and then fails the turn. The log holds
  no trace of the attempts at all (compact-overloaded). HTTP 500 twice then success (compact-http-500)
  logs exactly like a clean compaction.

### Gemini CLI (0.22.4 to 0.61.0)

docs/gemini-cli.md, "Verified on the wire", has the details per version. In short:
- **System and tools.** No version records the system instruction or the function declarations
  sent with every request: every agent request is at best **unknown**, its messages compared.
- **Messages.** Every agent request's messages match the wire in every version, once the importer
  reads 0.61's doubly recorded results once and keeps the copies of them a \`--resume\` writes back
  (the CLI sends each copy).
- **Compression.** The summary call and, from some version after 0.22, its verification are never
  recorded (not in the log). From 0.44 the list written back holds the summary, the acknowledgement
  and the kept tail, and the requests after it match; before 0.44 nothing is written: from a reply
  whose prompt token count reaches the client's threshold (0.5 of the model's token limit) on, every
  request names among its unknowns that its history may have been replaced by a summary, and the
  comparison takes the wire as that view whole or as any parts followed by the view from a user turn
  on, so the request after the compression is **unknown**, not a mismatch, and a difference in its
  kept tail is still one.
- **Failure.** An empty summary is retried five times, then the turn fails; nothing of it is in the
  file. The next prompt after such a turn may carry a placeholder model turn the file does not hold
  (0.61): unknown. \`/compress\` does not run headless, so no manual compression is run.

### OpenCode 1.18.33

Files: \`$XDG_DATA_HOME/opencode/opencode.db\` (with its \`-wal\`, which OpenCode leaves unmerged on exit);
1.0.162 writes the JSON tree \`storage/\` instead. The client runs as \`opencode run --format json\`,
continued with \`--session\`, its whole config in \`OPENCODE_CONFIG_CONTENT\`: one OpenAI-compatible
provider pointed at the mock (Chat Completions), with a model of a small context (24,000 tokens) that
the scenarios pick with \`-m\` to make a reported usage overflow it.

- **Recorded:** every user and assistant message and part: texts, reasoning, tool calls with their
  input and output, each step's tokens, the compaction's user message (\`compaction\` part) and the
  summary message (\`summary: true\`, or its error), and when a tool output was pruned
  (\`state.time.compacted\`). The messages of every agent request are rebuilt exactly from these on
  every version run (tools-resume, auto-compact, manual-compact, prune, compact-http-400): none
  differs from the wire.
- **Not recorded, so unknown on every request:** the system prompt (OpenCode builds it per request)
  and the tool schemas. So no OpenCode request is a match: each one the log holds is unknown, with
  nothing recorded differing.
- **The summarizer call** is shaped by the version (src/main/importers/opencode/summarizer.ts), and its
  compaction prompt is never recorded: 1.0.162, 1.2.27 and 1.3.2 send the messages with that prompt at
  the end of the compaction's user message (the last user text is unknown); 1.14.41 sends the
  messages without the compaction's user message and the prompt as a user message of its own (that
  message is unknown); 1.18.33 sends one user message rendering the whole conversation as text inside
  the prompt (the whole message is unknown).
- **Only the wire shows** the title call (a tool-less request with the first prompt, from 1.2), which
  no log records. A wire request that arrived before the logged request's message was created is not
  paired with it (OpenCode writes the message first), so a title call never stands for a summarizer
  view of which nothing is recorded.
- **A failed compaction** (compact-http-400: the summarizer call answered with HTTP 400, which OpenCode
  does not retry) leaves the summary message with its error; the view is not replaced, and the
  next turn compacts again and fails again.
- **Manual compaction and pruning are driven through \`opencode serve\`** (scenarios with
  \`drive: server\`, src/main/fidelity/serve.ts): \`run\` has no \`/compact\` and exits before OpenCode's
  background pruning writes anything, so these start the client's own server against the mock and send
  each turn to its API: \`POST /session/:id/message\` for a prompt, \`POST /session/:id/summarize\`
  for \`/compact\` (what the TUI's command sends), and stop it with SIGTERM. manual-compact: the summary
  message and the view after it are rebuilt exactly like the automatic one's, on every version run.
  prune: after the third turn OpenCode marks the oldest outputs of the first turn pruned
  (\`state.time.compacted\`), and the fourth turn sends them as "[Old tool result content cleared]",
  each still the result of its call; Palimpsest shows the same. The thresholds are session/compaction.ts's
  \`PRUNE_PROTECT\` (40,000) and \`PRUNE_MINIMUM\` (20,000), in OpenCode's estimate of 4 characters a
  token, counted back from the user turn before the last; of twelve outputs of 27,600 characters, seven
  are cleared. Pruning is on by default up to 1.3.2 (1.0.162: unless \`OPENCODE_DISABLE_PRUNE\`; 1.2.27
  and 1.3.2: unless \`compaction.prune\` is false) and off unless \`compaction.prune\` is true from 1.14.41
  (the scenario sets it; 1.0.162's config refuses that key, so its variant leaves it out).

## The mock provider

\`src/main/mock/\` is a node:http server that binds to loopback only (\`startMockProvider({script,
recordPath})\`, port 0 by default). It is bounded: at most 2,000 requests (then 503) and bodies of at
most 64 MiB (then 413).

**Protocols.** It speaks the Anthropic Messages API (\`POST /v1/messages\`, streaming SSE or JSON,
plus \`POST /v1/messages/count_tokens\`) and the OpenAI Responses API (\`POST /v1/responses\`, a
streaming SSE of \`response.created\` … \`response.completed\`, \`response.incomplete\` or
\`response.failed\`), OpenAI Chat Completions (\`POST /v1/chat/completions\`, \`chat.completion.chunk\`
SSE ending in \`[DONE]\`) and the Gemini API (\`:generateContent\`, \`:streamGenerateContent?alt=sse\`).
A wire protocol is one \`ProtocolAdapter\` (\`src/main/mock/protocols/types.ts\`: routes, a digest of the
request for matching, replies, faults), listed in \`PROTOCOLS\`.

**Script.** It answers from an ordered list of steps (\`src/main/mock/script.ts\`). Each step is a
protocol-neutral reply or a fault, and may carry a predicate on the request (\`contains\`,
\`systemContains\`, \`lastUserContains\`, \`model\`, \`protocol\`, \`hasTools\`, \`not\`, \`any\`). A step is
used \`times\` times (0 = unlimited). A reply is text, thinking and tool calls, with:
- a stop reason: \`end\`, \`tool\`, \`length\`, \`refusal\`, \`pause\`, \`stop_sequence\`, or a raw string;
- usage: input, output, cacheRead, cacheWrite, reasoning.

The faults are:
- an HTTP status with the protocol's error body and any headers;
- \`overloaded\` (Anthropic 529, Responses 503);
- \`rate_limit\` (429 with retry-after);
- \`cut\` (the stream destroyed after N events);
- \`stream_error\` (an in-stream \`error\` or \`response.failed\`).

**Recording.** Every request is appended to the recording before it is answered, byte for byte.
Response ids carry the request's number (\`msg_mock_0003\`, \`resp_mock_0003\`, \`call_mock_0003_1\`),
so a log says which wire request each logged response answered.

## Reproducing

\`npm run test:fidelity\` installs the pinned clients on demand into
\`~/.cache/palimpsest-fidelity/<client>@<version>/\` (\`npm install --prefix … --no-save\`; override the
folder with \`PALIMPSEST_FIDELITY_CACHE\`). It runs the scenarios of \`fixtures/fidelity/scenarios/\` in
\`$TMPDIR/palimpsest-fidelity-run/<client>-<version>/<scenario>/\`, which holds a temporary HOME /
CODEX_HOME and working directory. The fixed paths keep the logs comparable between runs. The suite then
compares and writes this file. \`--copy\` refreshes \`fixtures/fidelity/logs/<client>-<version>/\` (each
scenario's log, \`captured.jsonl\`, the recorder's captures and \`run.json\`), and \`--no-run\` compares
those saved logs without any client. The saved logs contain the run folder's absolute paths as data; no
test depends on them.

**Version matrix.** Each client runs at several pinned versions (src/main/fidelity/clients.ts): Claude
Code 2.0.77, 2.1.9, 2.1.97, 2.1.197 and 2.1.332; Codex 0.47.0, 0.59.0, 0.77.0, 0.118.0, 0.169.0 and
0.171.0; OpenCode 1.0.162, 1.2.27, 1.3.2, 1.14.41 and 1.18.33. Each client's versions take the same
headless flags (checked with each version's \`--help\`). The
current versions run every scenario. The older ones run tools-resume, manual-compact (Claude Code),
auto-compact and compact-http-500; the other compaction faults say \`currentOnly\`. A scenario file
may name the versions it is for (\`versions\`), for a version that truly needs other replies: the
variants of auto-compact (Claude Code 2.0.77 and 2.1.9, 2.1.197; Codex 0.77.0) and of
compact-http-500 (Codex 0.77.0) make those versions compact automatically, each for a reason
docs/compatibility.md gives. Four Claude Code scenarios run only where their shape exists:
todo-reminder and local-command-compact on 2.1.97 and 2.1.332, auto-compact-trigger (a request just
under, then just over, the trigger) on 2.1.9 and 2.1.97, and microcompact on 2.1.9. \`--versions all\` (the default) runs the whole matrix,
\`--versions current\` the current versions only, and \`--versions 2.1.9,0.47.0\` a list. What each
version's log records is in docs/compatibility.md, generated from the saved runs by \`npm run docs:compat\`.

**Interactive scenarios.** Claude Code's print mode (\`-p\`) logs only user, assistant and
\`compact_boundary\` messages, so some shapes of a real user's log never appear in a headless run. A
scenario with \`drive: terminal\` types its turns, slash commands included, into one interactive session
of the client, in a terminal: tmux on a private socket (src/main/fidelity/terminal.ts). The first-run
screens are answered by files in the temporary home (onboarding done, the folder trusted, the test key
approved). A turn ends when the mock, the logs and the screen have been still for 3 s, the input line
is showing and no work is in progress; the session ends with \`/exit\`. Two such scenarios:
microcompact-interactive (2.1.9, which then writes its \`microcompact_boundary\` record) and
local-command-interactive (2.1.9, 2.1.97 and 2.1.332: \`/context\` then \`/compact\` typed, which leaves
the command's echo unanswered before the boundary). \`.ci/run\` installs tmux where it is missing.

**Time.** Measured here (2 shared cores, clients already in the cache): the current versions alone
(\`--versions current\`, 13 runs) take 1 min 45 s; the whole matrix (44 runs) takes 7 min 53 s. The
matrix adds about 6 minutes, so CI (.ci/run) runs all of it, in two parts. The current versions are
the gate: any mismatch fails. The older ones (\`--versions older --allow-mismatch\`) report their
mismatches without failing, because the importers do not yet read every older format exactly; a
version that cannot be installed or run still fails (exit 3).

Exit codes:
- 0: every request the logs record matched.
- 1: a mismatch, or a run went wrong.
- 2: bad usage.
- 3: a client could not be installed or run here. Nothing was proved for it, and the report says so.
`;
