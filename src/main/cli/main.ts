import { stat } from 'node:fs/promises';
import { type Diagnostic, SEVERITY_RANK } from '../../shared/model/diagnostic';
import { whyUnreadable } from '../files/open-regular';
import type { FormatId } from '../importers/types';
import type { LoadedSession } from '../session/types';
import { SessionInspector } from '../session/inspector';
import { loadSession, UnreadableSessionError } from '../session/load';
import { claimedDirectory, SEARCH_DEPTH, sessionsUnder } from '../session/targets';
import { notSearchedNote } from './not-searched';
import { createCommandCounter } from '../tokens/sized';
import { COUNT_CACHE_SPEC, openCountCache } from './count-cache';
import { jsonPieces } from './json-pieces';
import { defaultShape, toWire, WIRE_SHAPES, type WireShape } from '../wire';
import { intFlag, parseArgs, stringFlag, UsageError, type ParsedArgs } from '../command/args';
import { EXIT_CLEAN, EXIT_FINDINGS, EXIT_UNUSABLE } from '../command/exit';
import { CommandFailure, failureJson, wantsJson, type FailureCode } from '../command/fail';
import type { Io } from '../command/io';
import { formatFlag } from './formats';
import { callOf } from '../capture/attach';
import { joinedView } from '../capture/joined-view';
import type { WireJoin } from '../../shared/model/wire-join';
import { CAPTURE_SPEC, captureFlags, joinCaptureFlags } from './capture-flag';
import { diagnosticJson, inspectJson, viewJson, JSON_VERSION } from '../present/json';
import { LS_SPEC, lsCommand } from './ls';
import { renderEvent, renderInspect, renderView } from '../present/text';
import { estimateRequestTokens, tokensCommand, TOKENS_SPEC } from './tokens';
import { VALIDATE_SPEC, validateCommand } from './validate';
import { followCommand } from './follow';
import { FORENSICS_SPEC, forensicsCommand } from './forensics';
import { branchSurvival } from '../session/forensics';
import type { Rates } from '../../shared/forensics/survival';

const USAGE = `palimpsest — the exact model view at every request of an agent session

Usage:
  palimpsest inspect <file|dir> [--json] [--no-cache] [--format F] [--session ID] [--branch B]
  palimpsest inspect <file> --follow [--json] [--format F] [--branch B]   new requests, compactions, findings as written
  palimpsest view <file> --request N [--json | --wire [anthropic|responses|chat]] [--format F] [--session ID] [--branch B]
  palimpsest events <file> [--from SEQ] [--to SEQ] [--json] [--format F] [--session ID]
  palimpsest ls [--harness H[,H…]] [--root H=PATH]… [--json] [--no-cache]   the local sessions of every harness
  palimpsest search QUERY [--root H=PATH]… [--harness H] [--project P] [--since D] [--model M]
                  [--has compaction|finding] [--limit N] [--json]
                                          full-text search over every local session ("phrase", prefix*)
  palimpsest tokens <file> [--request N] [--policy NAME[,field=value…]] [--price [MODEL=]IN,OUT,CR[,CW]]… [--json] [--no-cache]
                                          token account and prompt-cache breaks per request
  palimpsest validate <file|dir> [--json] [--rule ID,…] [--min-severity S] [--format F] [--branch B]
  palimpsest validate --list-rules [--json]
  palimpsest serve [file…] [--port N] [--memory-budget MB] [--allow-endpoint URL]…
                                          the UI and API on 127.0.0.1, for a browser
  palimpsest record [--out FILE] [--upstream [PROVIDER=]URL]… [--port N] -- <command> [args…]
  palimpsest record --listen [--out FILE] [--upstream [PROVIDER=]URL]… [--port N]
                                          record a harness's API exchanges through a proxy on 127.0.0.1
  palimpsest rerun <file> (--compaction ID | --request N) --strategy S [--model PROVIDER:MODEL]… [--session-model]
                   [--base-url URL] [--model-window N] [--key-env VAR] [--temperature T] [--reasoning E]
                   [--model-max-output N] [--price IN,OUT[,CR[,CW]]]   (these pin the one --model)
                   [--window N] [--max-output N] [--option k=v]… [--repeat K] [--runs FILE] [--json]
                   [--allow-endpoint URL]…
                                                          re-run a compaction (results to a sidecar); without
                                                          --model: the chain in settings, else the session's model
  palimpsest rerun --list-strategies
  palimpsest runs <file> [--runs FILE] [--json]            the re-runs recorded for a session
  palimpsest compare <file> (--compaction ID | --request N) [--run ID]… [--batch ID] [--json]   original vs re-runs
  palimpsest eval <spec> [--resume] [--shard k/n] [--baseline FILE] [--report FILE]… [--results FILE] [--json]
                  [--allow-endpoint URL]…
  palimpsest facts draft <trace> (--compaction ID | --request N)   candidate facts to confirm by hand
  palimpsest forensics <file> [--compaction ID] [--json] [--format F] [--session ID] [--branch B]
                                          what each compaction's summary kept and lost, by category
  palimpsest report [DIR] [--root H=PATH]… [--since YYYY-MM-DD] [--by day|project|harness|model]
                    [--json | --html OUT] [--no-cache]
                                          compaction health across sessions, per day, project, harness or model
  palimpsest export <file> (--html OUT | --markdown OUT --compaction ID) [--redact] [--redact-pattern REGEX]…
                    [--preview] [--json] [--format F] [--session ID] [--branch B]
                                          the session as one offline HTML file, or a compaction as Markdown;
                                          --preview lists what --redact would redact, writing nothing

Formats (--format): palimpsest (v1), dsh (DeepSeek Harness .jsonl / .jsonl.zst[d]), claude-code, codex, rind (a session
folder), cosh, opencode (an OpenCode database or storage folder: --session ID picks one of its
sessions); detected from the first lines.
A key is sent to a provider's own endpoint, or to an endpoint approved with --allow-endpoint (the
--base-url of the --model typed, and the endpoints of an eval spec named, count as approved).
Exit codes: 0 clean, 1 the session has error-level diagnostics, 2 unreadable input or bad usage.
See docs/cli.md.`;

/** `follow`: load the session so that it can read on (LoadOptions.resumable), or take `follow.loaded`, the session read on. */
async function open(
  path: string,
  format: FormatId | undefined,
  branch: string | undefined,
  args?: ParsedArgs,
  follow?: { readonly loaded: LoadedSession | undefined },
): Promise<SessionInspector> {
  const session =
    follow?.loaded ??
    (await loadSession(path, { format, session: args ? stringFlag(args, 'session') : undefined, resumable: follow !== undefined }));
  const inspector = new SessionInspector(session);
  try {
    if (branch !== undefined && !inspector.hasBranch(branch)) {
      throw new UsageError(`no branch "${branch}" in ${path}; branches: ${inspector.branches.map((b) => b.name).join(', ')}`);
    }
    if (args) await joinCaptureFlags(inspector, args, branch);
    await inspector.loadRuleTexts(branch);
  } catch (err: unknown) {
    await session.dispose();
    throw err;
  }
  return inspector;
}

const worstExit = (inspector: SessionInspector, branch?: string): number =>
  inspector.diagnostics(branch).some((d) => SEVERITY_RANK[d.severity] >= SEVERITY_RANK.error) ? EXIT_FINDINGS : EXIT_CLEAN;

/** Each measured compaction's survival rates, by id, for `inspect --json`. */
async function survivalById(inspector: SessionInspector, branch?: string): Promise<Map<string, Rates>> {
  return new Map((await branchSurvival(inspector, branch)).map((c) => [c.id, c.survival]));
}

async function inspectCommand(args: ParsedArgs, io: Io): Promise<number> {
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('inspect takes one <file|dir>');
  const json = args.flags.has('json');
  const format = formatFlag(args);
  const branch = stringFlag(args, 'branch');
  const info = await stat(path).catch((err: unknown) => {
    throw new UnreadableSessionError(whyUnreadable(path, err), [], path);
  });
  if (args.flags.has('follow')) {
    if (info.isDirectory() || args.flags.has('session'))
      throw new UsageError('--follow follows one session file, not a folder or a database');
    return followCommand(
      path,
      { json, branch, captures: captureFlags(args), open: (p, loaded) => open(p, format, branch, args, { loaded }) },
      io,
    );
  }
  if (!info.isDirectory() || args.flags.has('session') || (await claimedDirectory(path)) === 'session') {
    const counter = json ? createCommandCounter() : null;
    const counts = json ? openCountCache(args, io) : null;
    try {
      const inspector = await open(path, format, branch, args);
      try {
        const j = inspectJson(
          path,
          inspector,
          branch,
          counter ? await estimateRequestTokens(inspector, { branch, counter, cache: counts?.cache }) : [],
          json ? await survivalById(inspector, branch) : undefined,
        );
        counts?.save();
        if (!json) io.out(renderInspect(j));
        // A long session lists a hundred thousand requests and more: written in pieces, never as one string.
        else for (const piece of jsonPieces(j)) io.out(piece);
        return worstExit(inspector, branch);
      } finally {
        await inspector.session.dispose();
      }
    } finally {
      await counter?.dispose();
    }
  }
  if (captureFlags(args).length > 0) throw new UsageError('--capture joins one session: give a session file, not a folder');
  const notSearched: string[] = [];
  const files = await sessionsUnder(path, SEARCH_DEPTH, notSearched);
  notSearchedNote(notSearched, io);
  const sessions: unknown[] = [];
  const texts: string[] = [];
  let exit = EXIT_CLEAN;
  const counter = json ? createCommandCounter() : null;
  const counts = json ? openCountCache(args, io) : null;
  try {
    for (const f of files) {
      try {
        const inspector = await open(f, format, undefined);
        const j = inspectJson(
          f,
          inspector,
          undefined,
          counter ? await estimateRequestTokens(inspector, { counter, cache: counts?.cache }) : [],
          json ? await survivalById(inspector) : undefined,
        );
        sessions.push(j);
        texts.push(renderInspect(j));
        exit = Math.max(exit, worstExit(inspector));
        await inspector.session.dispose();
      } catch (err: unknown) {
        if (!(err instanceof UnreadableSessionError)) throw err;
        sessions.push({
          palimpsest: JSON_VERSION,
          path: f,
          error: err.message,
          code: 'UNREADABLE',
          diagnostics: err.diagnostics.map(diagnosticJson),
        });
        texts.push(`${f}\n  unreadable: ${err.message}`);
        exit = Math.max(exit, EXIT_FINDINGS);
      }
    }
  } finally {
    counts?.save();
    await counter?.dispose();
  }
  const none = files.length === 0 ? `${path}: no sessions (*.jsonl, *.jsonl.zst, *.jsonl.zstd, or a session folder) found` : null;
  if (none !== null) texts.push(none);
  if (!json) io.out(texts.join('\n\n'));
  // No session is an exit 2: the listing then carries the JSON error's fields too.
  else
    for (const piece of jsonPieces({
      palimpsest: JSON_VERSION,
      path,
      sessions,
      ...(none !== null ? { error: none, code: 'NO_SESSIONS', diagnostics: [] } : {}),
    }))
      io.out(piece);
  return none !== null ? EXIT_UNUSABLE : exit;
}

async function viewCommand(args: ParsedArgs, io: Io): Promise<number> {
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('view takes one <file>');
  const index = intFlag(args, 'request');
  if (index === undefined) throw new UsageError('view needs --request N (0-based; `palimpsest inspect` lists them)');
  const wireFlag = stringFlag(args, 'wire');
  if (wireFlag !== undefined) {
    if (wireFlag !== 'auto' && !(WIRE_SHAPES as readonly string[]).includes(wireFlag))
      throw new UsageError(`--wire takes ${WIRE_SHAPES.join(', ')} (or nothing: from the route), not "${wireFlag}"`);
    if (args.flags.has('json')) throw new UsageError('--wire and --json exclude each other');
  }
  const inspector = await open(path, formatFlag(args), stringFlag(args, 'branch'), args);
  try {
    const branch = stringFlag(args, 'branch') ?? inspector.defaultBranch;
    const joined = inspector.wire(branch);
    if (joined) return await viewJoined(inspector, joined, index, branch, path, args, io);
    const view = await inspector.fullView(index, branch);
    if (!view) {
      const n = inspector.replay(branch).requests.length;
      throw new UsageError(`no request ${index} in ${path}: it has ${n} request${n === 1 ? '' : 's'} (0–${Math.max(0, n - 1)})`);
    }
    const wire = stringFlag(args, 'wire');
    if (wire !== undefined) {
      const state = inspector.replay(branch);
      const harness = inspector.session.format;
      const shape: WireShape = wire === 'auto' ? defaultShape(view.request.route, harness) : (wire as WireShape);
      const origins = new Map<string, string | undefined>();
      for (const it of view.items) origins.set(it.id, state.itemById.get(it.id)?.item.origin);
      const input = state.requests[index]?.input;
      const instruction = input ? (input.instruction === undefined ? null : input.instruction) : undefined;
      const w = toWire(shape, view, { harness, origins, instruction });
      io.out(JSON.stringify(w.body, null, 2));
      for (const u of w.unknowns) io.err(`unknown: ${u}`);
      return worstExit(inspector, branch);
    }
    const j = viewJson(path, branch, view, inspector.fates(index, branch));
    io.out(args.flags.has('json') ? JSON.stringify(j, null, 2) : renderView(j));
    return worstExit(inspector, branch);
  } finally {
    await inspector.session.dispose();
  }
}

/**
 * `view` of a session joined with a capture: N indexes the joined list. A request the wire has is
 * shown as sent (its system prompt and tools from the wire; its items from the log when the wire
 * carried exactly those, with their provenance); `--wire` prints the captured body itself.
 */
async function viewJoined(
  inspector: SessionInspector,
  joined: WireJoin,
  index: number,
  branch: string,
  path: string,
  args: ParsedArgs,
  io: Io,
): Promise<number> {
  const j = joined.requests[index];
  if (!j) {
    const n = joined.requests.length;
    throw new UsageError(
      `no request ${index} in ${path} joined with its capture: it has ${n} request${n === 1 ? '' : 's'} (0–${Math.max(0, n - 1)})`,
    );
  }
  const call = callOf(inspector, j);
  if (args.flags.has('wire') && call) {
    if (call.exchange.request.body === null)
      throw new CommandFailure(
        'FAILED',
        `the capture does not hold the body of request ${index} (${call.exchange.file}:${call.exchange.line})`,
      );
    io.out(call.exchange.request.body);
    io.err(
      `captured body of request ${index}: ${call.exchange.file}:${call.exchange.line}, ${call.exchange.method} ${call.exchange.path}, HTTP ${call.status ?? 'no response'}`,
    );
    return worstExit(inspector, branch);
  }
  if (args.flags.has('wire'))
    throw new UsageError(`request ${index} is not in the capture (the log alone has it): drop --capture to rebuild its body from the log`);
  const view = await joinedView(inspector, j, branch);
  if (!view) throw new CommandFailure('FAILED', `request ${index} has no view`);
  const fates = j.logIndex === null ? [] : inspector.fates(j.logIndex, branch);
  const base = viewJson(path, branch, view, fates);
  const out = {
    ...base,
    source: j.source,
    status: j.status,
    logIndex: j.logIndex,
    verdict: j.verdict,
    firstDiff: j.firstDiff,
    wire: call ? { capture: call.exchange.file, line: call.exchange.line, exchange: call.exchange.index } : null,
  };
  if (args.flags.has('json')) io.out(JSON.stringify(out, null, 2));
  else
    io.out(
      `${renderView(base)}\n\nfrom ${j.source === 'both' ? `the wire and the log (${j.verdict ?? 'not compared'})` : j.source === 'wire' ? 'the wire only' : 'the log only'}${call ? `: ${call.exchange.file}:${call.exchange.line}, HTTP ${call.status ?? 'no response'}` : ''}`,
    );
  return worstExit(inspector, branch);
}

async function eventsCommand(args: ParsedArgs, io: Io): Promise<number> {
  const path = args.positional[0];
  if (!path || args.positional.length > 1) throw new UsageError('events takes one <file>');
  const inspector = await open(path, formatFlag(args), undefined, args);
  const from = intFlag(args, 'from') ?? 0;
  const to = intFlag(args, 'to') ?? inspector.session.events.length - 1;
  if (to < from) throw new UsageError(`--to (${to}) is before --from (${from})`);
  const json = args.flags.has('json');
  const files = inspector.session.files;
  try {
    for (const e of inspector.events(from, to)) {
      const loc = inspector.session.loc(e.seq);
      if (!loc) throw new Error(`event ${e.seq} has no source location`);
      if (json) {
        const full = await inspector.session.hydrate(e.seq);
        io.out(JSON.stringify({ ...full, file: files[loc.file]?.path ?? null, line: loc.line, offset: loc.offset }));
      } else {
        io.out(renderEvent(e, files[loc.file]?.path ?? '?', loc.line));
      }
    }
    return worstExit(inspector);
  } finally {
    await inspector.session.dispose();
  }
}

interface Command {
  readonly spec: Record<string, 'value' | 'boolean'>;
  readonly run: (a: ParsedArgs, io: Io) => Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  inspect: {
    spec: { json: 'boolean', format: 'value', session: 'value', branch: 'value', follow: 'boolean', ...COUNT_CACHE_SPEC, ...CAPTURE_SPEC },
    run: inspectCommand,
  },
  view: {
    spec: { json: 'boolean', format: 'value', session: 'value', branch: 'value', request: 'value', wire: 'value', ...CAPTURE_SPEC },
    run: viewCommand,
  },
  events: { spec: { json: 'boolean', format: 'value', session: 'value', from: 'value', to: 'value', ...CAPTURE_SPEC }, run: eventsCommand },
  ls: { spec: LS_SPEC, run: lsCommand },
  tokens: { spec: TOKENS_SPEC, run: tokensCommand },
  validate: { spec: VALIDATE_SPEC, run: validateCommand },
  forensics: { spec: FORENSICS_SPEC, run: forensicsCommand },
};

/**
 * The commands that need the providers' SDKs, the web host, the API, the re-run machinery or the
 * exporter: most of the bundle, loaded only when one of them runs, so that opening a session does not pay for
 * them (the bench's `commands` rows, docs/performance.md).
 */
const LOADED_WHEN_RUN: Record<string, () => Promise<Command>> = {
  serve: async () => {
    const m = await import('./serve');
    return { spec: m.SERVE_SPEC, run: m.serveCommand };
  },
  record: async () => {
    const m = await import('./record');
    return { spec: m.RECORD_SPEC, run: (a, io) => m.recordCommand(a, io) };
  },
  rerun: async () => {
    const m = await import('./rerun');
    return { spec: m.RERUN_SPEC, run: m.rerunCommand };
  },
  runs: async () => {
    const m = await import('./rerun');
    return { spec: m.RUNS_SPEC, run: m.runsCommand };
  },
  compare: async () => {
    const m = await import('./rerun');
    return { spec: m.COMPARE_SPEC, run: m.compareCommand };
  },
  eval: async () => {
    const m = await import('./eval');
    return { spec: m.EVAL_SPEC, run: m.evalCommand };
  },
  facts: async () => {
    const m = await import('./eval');
    return { spec: m.FACTS_SPEC, run: m.factsCommand };
  },
  search: async () => {
    const m = await import('./search');
    return { spec: m.SEARCH_SPEC, run: m.searchCommand };
  },
  // Reads every session it finds: the aggregation and page rendering load only when asked for.
  report: async () => {
    const m = await import('./report');
    return { spec: m.REPORT_SPEC, run: m.reportCommand };
  },
  export: async () => {
    const m = await import('./export');
    return { spec: m.EXPORT_SPEC, run: m.exportCommand };
  },
};

/** `--wire` takes an optional shape: `--wire` alone (not followed by a shape) is `--wire=auto`. */
function wireArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a !== '--wire') {
      out.push(a);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && (WIRE_SHAPES as readonly string[]).includes(next)) {
      out.push(`--wire=${next}`);
      i++;
    } else out.push('--wire=auto');
  }
  return out;
}

export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  const json = wantsJson(argv);
  // Every exit 2 under --json prints the JSON error on stdout (docs/cli.md, "Errors"); the text
  // goes to stderr either way, as without --json.
  const fail = (code: FailureCode, message: string, path?: string, diagnostics: readonly Diagnostic[] = []): number => {
    if (json) io.out(failureJson(code, message, path, diagnostics.map(diagnosticJson)));
    return EXIT_UNUSABLE;
  };
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE);
    return command ? EXIT_CLEAN : EXIT_UNUSABLE;
  }
  const c = COMMANDS[command] ?? (await LOADED_WHEN_RUN[command]?.());
  if (!c) {
    io.err(`palimpsest: unknown command "${command}"\n\n${USAGE}`);
    return fail('USAGE', `unknown command "${command}"`);
  }
  try {
    return await c.run(parseArgs(command === 'view' ? wireArgs(rest) : rest, c.spec), io);
  } catch (err: unknown) {
    if (err instanceof UsageError) {
      io.err(`palimpsest ${command}: ${err.message}`);
      return fail('USAGE', err.message);
    }
    if (err instanceof CommandFailure) {
      io.err(`palimpsest ${command}: ${err.message}`);
      return fail(err.code, err.message);
    }
    if (err instanceof UnreadableSessionError) {
      io.err(`palimpsest ${command}: ${err.message}`);
      for (const d of err.diagnostics) io.err(`  ${d.severity} ${d.rule} ${d.file ?? ''}${d.line ? `:${d.line}` : ''} ${d.message}`);
      return fail('UNREADABLE', err.message, err.path, err.diagnostics);
    }
    if (!json) throw err;
    io.err(`palimpsest: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return fail('INTERNAL', `internal error: ${err instanceof Error ? err.message : String(err)}`);
  }
}
