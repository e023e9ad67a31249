import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type CapturedRequest, bodyJson, readCaptured } from '../mock/record';
import type { ClientId } from './clients';
import { openCodeRecords } from './compat-opencode';
import { type AutoCompactSizes, autoCompactSizes } from './auto-compact-sizes';
import { type Scenario, scenariosFor } from './scenario';

/*
 * What each client version's log records, derived from its saved fidelity runs
 * (fixtures/fidelity/logs/<client>-<version>/<scenario>/: the log, the mock's captured.jsonl and
 * run.json). Every fact here is computed from those files, and each one that the wire can confirm
 * is checked against captured.jsonl (the requests sent) or the mock's scripted answers (what came
 * back). docs/compatibility.md and src/shared/compat/versions.ts are rendered from these facts.
 */

export type Presence = 'verbatim' | 'differs' | 'absent' | 'unknown';

export interface VersionFacts {
  readonly client: ClientId;
  readonly version: string;
  /** The saved runs the facts come from. */
  readonly scenarios: readonly string[];
  /** Model requests (POST) the mock received over those runs. */
  readonly wireRequests: number;
  /** Record kinds in the logs: `type`, or `type/subtype` (Claude Code `system`, Codex `event_msg` / `response_item`). */
  readonly recordKinds: readonly string[];
  /** Where the wire carries the system prompt of the first model request. */
  readonly systemOnWire: string | null;
  /** Whether the log holds that text: verbatim, only its opening (differs), or not at all. */
  readonly systemInLog: Presence;
  /** The record kind holding it (or its opening), null when absent. */
  readonly systemLoggedIn: string | null;
  /** Tool descriptions of the first model request found verbatim in the log, of how many sent. */
  readonly toolsInLog: { readonly found: number; readonly of: number };
  /** Where the usage of a call is written relative to the call's output, checked on scripted answers. */
  readonly usage: 'before-output' | 'after-output' | 'on-output-record' | 'not-logged' | 'unknown';
  /** The answers the usage order was checked on (`scenario:step`). */
  readonly usageCheckedOn: readonly string[];
  /** Record kinds and fields naming a compaction, in the compaction scenarios' logs. */
  readonly compactionRecords: readonly string[];
  /** Subagent / summarizer files beside the main log. */
  readonly sideFiles: 'top-level agent-*.jsonl' | '<session>/subagents/' | 'none';
  /** Where the client compacted automatically, per model (./auto-compact-sizes.ts). */
  readonly autoCompact: readonly AutoCompactSizes[];
  /** Problems with the saved runs themselves (a turn that failed, a missing file). */
  readonly problems: readonly string[];
}

interface Line {
  readonly kind: string;
  readonly value: Record<string, unknown>;
  readonly strings: readonly string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every string value (not key) inside a JSON value. */
function stringsOf(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 64) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out, depth + 1);
  else if (isObj(v)) for (const x of Object.values(v)) stringsOf(x, out, depth + 1);
  return out;
}

function kindOf(client: ClientId, r: Record<string, unknown>): string {
  const type = typeof r.type === 'string' ? r.type : '?';
  // Gemini CLI: a message's `type`, else the update it is (`$set` of which fields, `$rewindTo`) or the metadata line.
  if (client === 'gemini-cli' && type === '?')
    return isObj(r.$set) ? `$set/${Object.keys(r.$set).sort().join(',')}` : '$rewindTo' in r ? '$rewindTo' : 'metadata';
  if (client === 'claude-code') return type === 'system' && typeof r.subtype === 'string' ? `system/${r.subtype}` : type;
  const p = r.payload;
  if ((type === 'event_msg' || type === 'response_item') && isObj(p) && typeof p.type === 'string') return `${type}/${p.type}`;
  return type;
}

/** A log's lines (unparsable ones are skipped and counted in `bad`). */
function readLog(client: ClientId, path: string): { lines: Line[]; bad: number } {
  const lines: Line[] = [];
  let bad = 0;
  const text = readFileSync(path, 'utf8');
  if (client === 'gemini-cli' && path.endsWith('.json')) {
    // Gemini CLI up to 0.38: one whole JSON per chat, its messages a list inside.
    try {
      const v = JSON.parse(text) as unknown;
      if (!isObj(v)) return { lines, bad: 1 };
      const { messages, ...meta } = v;
      lines.push({ kind: 'metadata', value: meta, strings: stringsOf(meta) });
      for (const m of Array.isArray(messages) ? messages : [])
        if (isObj(m)) lines.push({ kind: kindOf(client, m), value: m, strings: stringsOf(m) });
        else bad++;
      return { lines, bad };
    } catch {
      return { lines, bad: 1 };
    }
  }
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const v = JSON.parse(raw) as unknown;
      if (!isObj(v)) {
        bad++;
        continue;
      }
      lines.push({ kind: kindOf(client, v), value: v, strings: stringsOf(v) });
    } catch {
      bad++;
    }
  }
  return { lines, bad };
}

/** Text of an Anthropic or Responses content value. */
function textOf(c: unknown): string {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c
    .map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : ''))
    .filter((t) => t !== '')
    .join('\n\n');
}

/** The system prompt of a model request as sent, and where it is. Claude Code's billing block is left out (no log holds it). */
function wireSystem(client: ClientId, body: unknown): { where: string; texts: string[] } | null {
  if (!isObj(body)) return null;
  if (client === 'claude-code') {
    const sys =
      typeof body.system === 'string'
        ? [body.system]
        : Array.isArray(body.system)
          ? body.system.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : ''))
          : [];
    const texts = sys.filter((t) => t !== '' && !t.startsWith('x-anthropic-billing-header'));
    return texts.length > 0 ? { where: '`system` (text blocks)', texts } : null;
  }
  if (client === 'gemini-cli') {
    const si = body.systemInstruction;
    const texts = typeof si === 'string' ? [si] : isObj(si) ? [textOf(si.parts)] : [];
    return texts.some((t) => t !== '') ? { where: '`systemInstruction`', texts } : null;
  }
  if (client === 'opencode') {
    // Chat Completions: the leading `system` messages.
    const texts: string[] = [];
    for (const m of Array.isArray(body.messages) ? body.messages : []) {
      if (!isObj(m) || m.role !== 'system') break;
      texts.push(textOf(m.content));
    }
    return texts.length > 0 ? { where: '`messages` (leading `system` messages)', texts } : null;
  }
  if (typeof body.instructions === 'string' && body.instructions !== '') return { where: '`instructions`', texts: [body.instructions] };
  const first = Array.isArray(body.input) ? body.input[0] : undefined;
  if (isObj(first) && first.role === 'developer')
    return { where: 'first `input` item (a `developer` message)', texts: [textOf(first.content)] };
  return null;
}

function wireTools(body: unknown): string[] {
  if (!isObj(body) || !Array.isArray(body.tools)) return [];
  // Gemini: the descriptions are those of each entry's `functionDeclarations`.
  const decls = body.tools.flatMap((t) => (isObj(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : []));
  if (decls.length > 0)
    return decls.map((d) => (isObj(d) && typeof d.description === 'string' ? d.description : '')).filter((d) => d !== '');
  // Chat Completions nests each tool's description under `function`.
  const described = body.tools.map((t) => (isObj(t) && isObj(t.function) ? t.function : t));
  return described.map((t) => (isObj(t) && typeof t.description === 'string' ? t.description : '')).filter((d) => d !== '');
}

/** The first request that is an agent call with tools (not a title or summarizer call). */
function firstAgentRequest(captured: readonly CapturedRequest[]): unknown {
  for (const r of captured) {
    const b = bodyJson(r);
    if (wireTools(b).length > 0) return b;
  }
  return captured.length > 0 ? bodyJson(captured[0] as CapturedRequest) : null;
}

interface SavedRun {
  readonly scenario: string;
  readonly dir: string;
  readonly logs: readonly string[];
  /** The session's own log (run.json), null when the run names none. */
  readonly mainLog: string | null;
  readonly problems: readonly string[];
}

function savedRuns(versionDir: string): SavedRun[] {
  if (!existsSync(versionDir)) return [];
  const out: SavedRun[] = [];
  for (const name of readdirSync(versionDir).sort()) {
    const runJson = join(versionDir, name, 'run.json');
    if (!existsSync(runJson)) continue;
    try {
      const r = JSON.parse(readFileSync(runJson, 'utf8')) as { logs?: unknown; problems?: unknown; mainLog?: unknown };
      const logs = Array.isArray(r.logs) ? r.logs.filter((l): l is string => typeof l === 'string') : [];
      const problems = Array.isArray(r.problems) ? r.problems.filter((p): p is string => typeof p === 'string') : [];
      const mainLog = typeof r.mainLog === 'string' ? r.mainLog : null;
      out.push({ scenario: name, dir: join(versionDir, name), logs, mainLog, problems });
    } catch (err) {
      out.push({
        scenario: name,
        dir: join(versionDir, name),
        logs: [],
        mainLog: null,
        problems: [`${runJson}: ${err instanceof Error ? err.message : String(err)}`],
      });
    }
  }
  return out;
}

const COMPACT = /compact/i;

/** Usage position for one scripted answer: the log line of its text against the line of its usage. */
function usageOrder(
  client: ClientId,
  lines: readonly Line[],
  text: string,
  output: number,
): 'before-output' | 'after-output' | 'on-output-record' | null {
  const textKind =
    client === 'claude-code'
      ? 'assistant'
      : client === 'gemini-cli'
        ? 'gemini'
        : client === 'opencode'
          ? 'part/text'
          : 'response_item/message';
  const textAt = lines.findIndex((l) => l.kind === textKind && l.strings.includes(text));
  if (textAt < 0) return null;
  if (client === 'gemini-cli') {
    const t = lines[textAt]?.value.tokens;
    return isObj(t) && t.output === output ? 'on-output-record' : null;
  }
  if (client === 'opencode') {
    // The step-finish part after the text carries the step's tokens.
    const finish = lines.findIndex((l, i) => i > textAt && l.kind === 'part/step-finish');
    const tokens = finish < 0 ? null : lines[finish]?.value.tokens;
    return isObj(tokens) && tokens.output === output ? 'after-output' : null;
  }
  if (client === 'claude-code') {
    const msg = lines[textAt]?.value.message;
    const u = isObj(msg) && isObj(msg.usage) ? msg.usage : null;
    return u && u.output_tokens === output ? 'on-output-record' : null;
  }
  // Codex: the token_count whose last usage has the scripted output count.
  const usageAt = lines.findIndex((l) => {
    if (l.kind !== 'event_msg/token_count') return false;
    const p = l.value.payload;
    const info = isObj(p) && isObj(p.info) ? p.info : null;
    const last = info && isObj(info.last_token_usage) ? info.last_token_usage : null;
    return last?.output_tokens === output;
  });
  if (usageAt < 0) return null;
  return usageAt < textAt ? 'before-output' : 'after-output';
}

/** The facts of one client version from its saved runs; null when it has none. */
export function versionFacts(fixtures: string, client: ClientId, version: string, scenarios: readonly Scenario[]): VersionFacts | null {
  const runs = savedRuns(join(fixtures, 'logs', `${client}-${version}`));
  if (runs.length === 0) return null;
  const byName = new Map(scenariosFor(scenarios, client, version, true).map((s) => [s.name, s]));
  const kinds = new Set<string>();
  const compaction = new Set<string>();
  const problems: string[] = [];
  const usageSeen = new Set<string>();
  const usageOn: string[] = [];
  let side: VersionFacts['sideFiles'] = 'none';
  let wireRequests = 0;
  let systemOnWire: string | null = null;
  let systemInLog: Presence = 'unknown';
  let systemLoggedIn: string | null = null;
  let toolsInLog = { found: 0, of: 0 };
  const autoCompact: AutoCompactSizes[] = [];

  for (const run of runs) {
    for (const p of run.problems) problems.push(`${run.scenario}: ${p}`);
    for (const l of run.logs) {
      if (client === 'claude-code' && l.includes('/subagents/')) side = '<session>/subagents/';
      else if (client === 'claude-code' && /(^|\/)agent-[^/]*\.jsonl$/.test(l) && side === 'none') side = 'top-level agent-*.jsonl';
    }
    const capturedPath = join(run.dir, 'captured.jsonl');
    // Model calls only: Claude Code 2.1.97 and 2.1.197 also send a bare `HEAD /` connectivity check.
    const captured = existsSync(capturedPath) ? readCaptured(capturedPath).requests.filter((r) => r.method === 'POST') : [];
    wireRequests += captured.length;
    const lines: Line[] = [];
    if (client === 'opencode') {
      const r = openCodeRecords(run.dir, run.logs);
      if (r.bad > 0) problems.push(`${run.scenario}: ${r.bad} record(s) not JSON objects`);
      lines.push(...r.lines.map((l) => ({ ...l, strings: stringsOf(l.value) })));
    }
    for (const l of client === 'opencode' ? [] : run.logs) {
      const path = join(run.dir, l);
      if (!existsSync(path)) {
        problems.push(`${run.scenario}: ${l} is listed in run.json but missing`);
        continue;
      }
      const r = readLog(client, path);
      if (r.bad > 0) problems.push(`${run.scenario}: ${l}: ${r.bad} line(s) not JSON objects`);
      lines.push(...r.lines);
    }
    // The main log only: a subagent's calls are not the conversation that compacts.
    if (client === 'claude-code') {
      const main = run.mainLog;
      if (main !== null && existsSync(join(run.dir, main)))
        autoCompact.push(...autoCompactSizes(readLog(client, join(run.dir, main)).lines.map((l) => l.value)));
    }
    for (const l of lines) {
      kinds.add(l.kind);
      if (COMPACT.test(l.kind)) compaction.add(l.kind);
      const fields = client === 'codex' && isObj(l.value.payload) ? l.value.payload : l.value;
      for (const k of Object.keys(fields)) if (COMPACT.test(k)) compaction.add(`${l.kind}.${k}`);
    }
    // System prompt and tools: judged on the first agent request of tools-resume (the plainest run).
    if (run.scenario === 'tools-resume') {
      const body = firstAgentRequest(captured);
      const sys = wireSystem(client, body);
      if (sys) {
        systemOnWire = sys.where;
        const all = lines.flatMap((l) => l.strings.map((s) => ({ s, kind: l.kind })));
        const whole = sys.texts.every((t) => all.some((x) => x.s.includes(t)));
        const head = sys.texts[0]?.slice(0, 200) ?? '';
        const at = all.find((x) => head !== '' && x.s.includes(head));
        systemInLog = whole ? 'verbatim' : at ? 'differs' : 'absent';
        systemLoggedIn = at?.kind ?? null;
      }
      const tools = wireTools(body);
      toolsInLog = { found: tools.filter((d) => lines.some((l) => l.strings.includes(d))).length, of: tools.length };
    }
    // Usage order: every scripted answer with a text and an output count, found in the log.
    const sc = byName.get(run.scenario);
    if (sc) {
      for (const [i, step] of sc.script.steps.entries()) {
        const reply = step.reply;
        const out = reply?.usage?.output;
        const text = reply?.content.find((c) => c.type === 'text');
        if (!reply || out === undefined || !text || text.type !== 'text') continue;
        if (!captured.some((r) => r.answer.step === i && r.answer.status === 200)) continue;
        const o = usageOrder(client, lines, text.text, out);
        if (o) {
          usageSeen.add(o);
          usageOn.push(`${run.scenario}:${step.label ?? i}`);
        }
      }
    }
  }
  const usage: VersionFacts['usage'] = usageSeen.size === 1 ? ([...usageSeen][0] as VersionFacts['usage']) : 'unknown';
  if (usageSeen.size > 1) problems.push(`usage order differs between answers: ${[...usageSeen].join(', ')}`);
  return {
    client,
    version,
    scenarios: runs.map((r) => r.scenario),
    wireRequests,
    recordKinds: [...kinds].sort(),
    systemOnWire,
    systemInLog,
    systemLoggedIn,
    toolsInLog,
    usage,
    usageCheckedOn: usageOn,
    compactionRecords: [...compaction].sort(),
    sideFiles: side,
    autoCompact: mergeSizes(autoCompact),
    problems,
  };
}

/** One row per model: the largest size not compacted at, the smallest compacted at. */
function mergeSizes(all: readonly AutoCompactSizes[]): AutoCompactSizes[] {
  const by = new Map<string, AutoCompactSizes>();
  for (const a of all) {
    const b = by.get(a.model);
    const max = (x: number | null, y: number | null): number | null => (x === null ? y : y === null ? x : Math.max(x, y));
    const min = (x: number | null, y: number | null): number | null => (x === null ? y : y === null ? x : Math.min(x, y));
    by.set(a.model, b ? { model: a.model, below: max(a.below, b.below), at: min(a.at, b.at) } : a);
  }
  return [...by.values()].sort((a, b) => a.model.localeCompare(b.model));
}

/** The facts of every pinned version with saved runs, clients in order, versions oldest first. */
export function allVersionFacts(
  fixtures: string,
  scenarios: readonly Scenario[],
  matrix: Readonly<Record<ClientId, readonly string[]>>,
): { facts: VersionFacts[]; missing: string[] } {
  const facts: VersionFacts[] = [];
  const missing: string[] = [];
  for (const client of Object.keys(matrix) as ClientId[]) {
    for (const version of matrix[client]) {
      const f = versionFacts(fixtures, client, version, scenarios);
      if (f) facts.push(f);
      else missing.push(`${client} ${version}`);
    }
  }
  return { facts, missing };
}
