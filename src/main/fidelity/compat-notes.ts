/*
 * The hand-kept part of docs/compatibility.md: facts about client versions that the generator does
 * not derive. Each says what it was read from. Everything above this section in the doc is computed
 * from the saved runs; update these notes by hand when new runs change them.
 */

export const COMPAT_NOTES = `
Not derived by the generator: read by hand from the saved runs named, and kept in
src/main/fidelity/compat-notes.ts.

- **Claude Code 2.0.77 and 2.1.9 side calls.** Besides the agent's calls, each \`-p\` turn sends side
  requests. On 2.0.77 these are "Warmup" requests, one per built-in subagent type, each logged as a
  top-level \`agent-<id>.jsonl\` file (\`isSidechain: true\`), plus a tool-less call that extracts file paths
  from the Bash command's output. On 2.1.9 they are tool-less calls with their own system prompts: "Extract
  any file paths that this command reads or modifies" and a Bash command prefix detection policy. Being unscripted, they consume the replies the
  scenario meant for the agent: in tools-resume, "turn1-final" answered a side call, and the agent's
  later calls got other steps or the fallback "OK". The scenarios were not varied for these versions;
  their rows in docs/fidelity.md show the effect. Source: captured.jsonl (\`answer.label\`, the last
  user text) and the logs. 2.1.97 and later write no \`agent-*.jsonl\` in these runs.
- **Claude Code 2.1.97 and 2.1.197 connectivity check.** Each turn starts with a bare \`HEAD /\` to the
  base URL, with no credentials. It is not a model call and is not counted. Source: captured.jsonl.
- **Claude Code joining consecutive user records.** A run of user records is sent as one user
  message, tool results first. From 2.1.97 the client also ends the last text of the message it is
  building with a newline where the next record starts with a text: after \`/compact\`, the caveat,
  command and stdout lines each end with "\\n" on the wire. 2.0.77 and 2.1.9 join them as they are.
  The published packages' code shows the step missing in 2.1.39 and 2.1.70 and present in 2.1.85;
  which release between 2.1.70 and 2.1.85 started is not known, and the comparison leaves the
  joined texts of those versions unknown (src/main/dialects/claude-user-seam.ts). Source: the merge
  step in the bundled JavaScript of 2.0.77, 2.1.9, 2.1.39, 2.1.70, 2.1.85 and 2.1.97; captured.jsonl
  of manual-compact and compact-http-500 (2.1.197 as well).
- **Claude Code parallel tool results after a reload.** Each parallel result is a record of its own
  whose parentUuid is the line of its call; the next record hangs off the result written last. After
  \`--resume\`, 2.0.77 and 2.1.9 send only the call answered last and its result (the parentUuid walk
  does not reach the other result, and a call without a result is left out); 2.1.97 sends both calls
  and both results. From 2.1.39 at the latest the client also answers a call left without a result
  with an error result of its own ("[Tool result missing due to internal error]"; read in the
  2.1.39 package's code). The log does not say whether the client reloaded before a request, so
  for versions before 2.1.97 the other calls and results are unknown (sent, left out, or answered
  with that error) in the requests after their turn (src/main/dialects/claude-resume.ts). Source:
  tools-resume's captured.jsonl and logs.
- **api-request records.** Of the versions run, only 2.1.332 writes \`api-request\`,
  \`api-request-shape\` and \`api-request-blob\`; 2.1.197 does not (see the record kinds above).
- **When automatic compaction triggers.** The auto-compact scenario reports a usage over the limit on
  the agent's last reply of the first turn; the next turn (a new process, \`--resume\` / \`exec resume\`)
  compacts before it is sent. Three versions did not, each for a reason read from the client's own
  code, and run a variant of the scenario (a file with \`versions\`) that makes them compact:
  - Claude Code 2.0.77 and 2.1.9 check, before each agent call, the usage of the last assistant reply
    in the conversation (input + cache read + cache creation + output) against the window less the
    output reserve and 13,000. Their own side calls (Warmup, file-path extraction) took the scenario's
    step that carried the usage, so the agent's reply had none. The variant gives that step to the
    call that carries the tool result.
  - Claude Code 2.1.197 checks the usage only when the window comes from somewhere other than the
    model's own size: \`CLAUDE_CODE_AUTO_COMPACT_WINDOW\`, the \`autoCompactWindow\` setting, server
    configuration, an experiment, or a default it has for a few models. Otherwise, as for its default
    model here (claude-opus-4-8, sent with the 1M-context beta), it leaves compaction to a request
    the API rejects (reactive compaction). The variant sets \`CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000\`;
    the log then has \`compact_boundary\` with \`trigger: "auto"\`.
  - Codex 0.77.0 checks \`model_auto_compact_token_limit\` after a model call only when the model asked
    for a follow-up (a tool call), and before a turn against the usage of the running process, which
    \`exec resume\` does not restore from the rollout (the resumed turn's first \`token_count\` has
    \`info: null\`). Its variants (auto-compact, compact-http-500) report the usage on the tool call's
    reply, so it compacts in the middle of the first turn and the turn goes on after the summary.
    That compaction logs a \`turn_context\`, a \`token_count\` repeating the last usage (the
    summarizer's rate limits), the summarizer's usage, Codex's estimate of the new history, and only
    then \`compacted\`: no agent call lies between the tool output and the summary. Their logs show
    0.47.0 and 0.59.0 compacting in the first turn right after the reply over the limit, and 0.118.0
    and later restoring the usage on resume and compacting before the next turn.

  Source: the clients' code (each Claude Code version's bundled JavaScript; the Codex source of the
  0.77 period), checked by the variants' runs: their logs and captured.jsonl.
- **Claude Code automatic compaction trigger, bracketed.** auto-compact-trigger reports a request
  just under, then one just over, the trigger each version's code computes for its default model
  (the sizes above). 2.1.9 reserves the default output limit, 32,000 tokens, not min(max output,
  20,000): it compacts a claude-sonnet-4-5 conversation past about 155,000 (200,000 − 32,000 −
  13,000), not the 167,000 documented for later versions; 2.1.97 compacts a claude-sonnet-4-6 one
  past about 167,000. A log names neither window nor trigger, so TRIGGER_MISSED infers only for a
  version and model this table has seen compacting (src/shared/compat/auto-compact.ts); a 2.1.92
  session that compacted at 187,000–195,000 ran on a configuration the table does not have, and
  gets no finding. Source: the clients' code (the window, output reserve and 13,000 buffer) and the
  runs' logs and captured.jsonl.
- **Claude Code reminders.** With no TodoWrite call for ten assistant messages the client attaches a
  \`todo_reminder\`. 2.1.332 offers TodoWrite headless only with \`CLAUDE_CODE_ENABLE_TASKS=0\` and
  \`CLAUDE_CODE_ENABLE_TODO_TOOLS=1\` (it has the task tools otherwise); its record carries
  \`rendered\` and the request rebuilds exactly. 2.1.97 logs \`{type, content: [], itemCount}\` with
  no rendered text and, on the wire, appends the reminder to the content of the tool result before
  it; the comparison leaves that result unknown. 2.1.197 logs a \`task_reminder\` and sends it as a
  \`system\` message. 2.1.332 also sends a \`silent_turn_reminder\` every five tool calls; its blob is
  written once, and a later request names it twice. 2.1.9 sends the reminder and logs nothing of it
  (below). The rule (ten assistant records, not thinking only, since the last TodoWrite call and since
  the last reminder, checked before every agent call) is the same in the code of 2.0.77, 2.1.9,
  2.1.20, 2.1.39, 2.1.70, 2.1.85 and 2.1.97. Source: todo-reminder's logs and captured.jsonl (2.1.97,
  2.1.332; 2.1.197 and 2.1.9 run by hand), and the bundled code of those versions.
- **Claude Code local commands before /compact.** Run headless (each turn a process of its own),
  2.1.9, 2.1.97 and 2.1.197 write a synthetic "No response requested." reply after the \`/context\`
  echo when the next turn resumes a conversation ending with a user message; 2.1.332 writes none,
  keeps the echo out of the summarizer call and sends it after the summary. 2.1.97 sends the echo in
  neither. So a headless log never leaves the echo unanswered before a boundary; an interactive
  session does (local-command-interactive: typed, 2.1.97 logs the caveat, the \`/context\` echo and its
  output right before the boundary, answered by nothing), which is why PENDING_USER_SUMMARISED skips
  local-command echoes. 2.1.332 logs the command as \`system/local_command\` records and its report as a
  user message; 2.1.9 logs nothing of \`/context\`, typed or not. Source: the logs and captured.jsonl
  of local-command-compact (2.1.97, 2.1.332; 2.1.9 and 2.1.197 run by hand) and
  local-command-interactive (2.1.9, 2.1.97, 2.1.332), and the resume step that inserts the reply in
  2.1.97's bundled JavaScript.
- **Claude Code microcompact and print mode.** Before each agent call 2.1.9 clears the results of
  Read, Bash, Grep, Glob, WebSearch, WebFetch, Edit and Write calls but the last three, oldest first,
  while the rest pass 40,000 tokens, when the last reply reported at least its warning threshold
  (the trigger less 20,000) and the clearing saves at least 20,000. Its estimate of a result is its
  text length / 4, rounded, and 2,000 per image; the usage it reads is the last reply's input + cache
  read + cache write + output. A cleared call stays cleared for the rest of the process, and a
  resumed session starts with none. A cleared result is sent as
  \`<persisted-output>Tool result saved to: <config dir>/projects/<cwd>/<session>/tool-results/<call
  id>.txt\\n\\nUse Read to view</persisted-output>\` (\`.json\` for a result made of blocks; "[Old tool
  result content cleared]" if the file cannot be written): the log holds neither the configuration
  directory nor the file. It writes a \`system/microcompact_boundary\` record, but its print mode
  (\`-p\`) records only user, assistant and \`compact_boundary\` messages, so a headless log has
  neither that record nor any attachment. Typed into an interactive session (microcompact-interactive),
  2.1.9 writes the record, naming in \`compactedToolIds\` exactly the results it sent as notes from then
  on; it still logs no todo reminder. The same rule and constants are in 2.1.20 and 2.1.39;
  2.0.77 has them too but never writes a record, interactive or not, and sends the note or "[Old tool
  result content cleared]" by a server-side flag. 2.1.70, 2.1.85 and 2.1.97 have no such rule, and
  create no \`microcompact_boundary\` (2.1.97 clears results only after an idle gap behind a
  server-side flag, off by default). Versions between those read are not known: the importer names
  their results only as maybe cleared (src/shared/compat/claude-unlogged.ts). Source: the logs and
  captured.jsonl of microcompact and microcompact-interactive, and the bundled code of 2.0.77, 2.1.9, 2.1.20, 2.1.39, 2.1.70, 2.1.85 and 2.1.97.
- **Claude Code summarizer files.** No version run writes \`agent-acompact-*.jsonl\`: 2.1.9 calls the
  summarizer without a forked agent, and 2.1.97, 2.1.197 and 2.1.332 fork it with \`skipTranscript\`
  set. Source: the compaction code in each version's bundle.
- **Codex base instructions.** 0.47.0, 0.59.0 and 0.77.0 send them as \`instructions\` and do not
  log them. 0.118.0 sends \`instructions\` and logs the same text in \`session_meta\`. 0.169.0 and
  0.171.0 send them as the first \`input\` item, a \`developer\` message. They log
  \`session_meta.base_instructions.text\`, which has one line more than what is sent: "- If you
  create a checklist or task list, you update item statuses incrementally …". Source: the
  tools-resume runs, diffing the logged text with the first captured request.
- **Codex usage order.** On 0.47.0 and 0.59.0, a call's \`event_msg/token_count\` is written before
  the call's output items; from 0.77.0 it is written after them. The generator checks this on every
  scripted answer that has a usage (the "checked on" count above).
- **OpenCode manual compaction and pruning, over the server API.** \`opencode run\` cannot start either:
  it has no \`/compact\`, and it exits as soon as the turn's loop is over, while pruning runs after
  that loop, not awaited (session/prompt.ts: \`SessionCompaction.prune({ sessionID })\` up to 1.3.2;
  \`prune(…).pipe(ignore, forkIn(scope))\` from 1.14.41). Every version run (1.0.162 to 1.18.33)
  serves \`POST /session\`, \`POST /session/:sessionID/message\` and \`POST /session/:sessionID/summarize\`
  (body \`{providerID, modelID}\`) on \`opencode serve\`, so manual-compact and prune drive it there.
  When pruning is on differs: 1.0.162 prunes unless \`OPENCODE_DISABLE_PRUNE\` is set
  (\`if (Flag.OPENCODE_DISABLE_PRUNE) return\`) and refuses a \`compaction\` key in its config
  ("Unrecognized key"); 1.2.27 and 1.3.2 prune unless \`compaction.prune\` is false
  (\`if (config.compaction?.prune === false) return\`); 1.14.41 and 1.18.33 prune only when it is true
  (\`if (!config.compaction?.prune) return\`). The thresholds are the same in all of them:
  \`PRUNE_PROTECT\` 40,000 and \`PRUNE_MINIMUM\` 20,000 estimated tokens, the last two user turns
  never touched, the \`skill\` tool's outputs kept from 1.2.27. Source: session/compaction.ts and
  session/prompt.ts as bundled in each version's binary, and the runs' run.json.
`;
