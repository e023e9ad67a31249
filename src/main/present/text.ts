import type { Block } from '../../shared/model/content';
import type { LogEvent } from '../../shared/model/event';
import type { inspectJson, viewJson } from './json';
import { grouped } from '../../shared/grouped';

/** Human-readable renderings of the CLI's answers. Session text is printed as data, one line per item. */

// Session text is untrusted: control characters (escape sequences included) must not reach the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

const oneLine = (s: string, max = 100): string => {
  const flat = s.replace(CONTROL, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const num = (n: number | null | undefined): string => (n === null || n === undefined ? '—' : grouped(n));

export function blockPreview(b: Block): string {
  switch (b.type) {
    case 'text':
      return oneLine(b.text);
    case 'reasoning':
      return `[reasoning] ${b.redacted ? '(redacted)' : oneLine(b.text)}`;
    case 'tool_call':
      return `[call ${b.name} ${b.id}] ${oneLine(b.input, 80)}`;
    case 'tool_result':
      return `[result ${b.callId}${b.isError ? ' error' : ''}] ${oneLine(b.content.map(blockPreview).join(' '), 80)}`;
    case 'image':
      return `[image ${b.mediaType ?? ''}${b.bytes !== undefined ? ` ${b.bytes} bytes` : ''}]`;
    case 'opaque':
      return `[opaque ${b.label}${b.chars !== undefined ? `, ${b.chars} chars` : ''}]`;
  }
}

export function renderInspect(j: ReturnType<typeof inspectJson>): string {
  const out: string[] = [];
  out.push(`${j.path}`);
  out.push(`  format      ${j.format}`);
  for (const f of j.files) out.push(`  file        ${f.path} (${num(f.bytes)} bytes, ${num(f.lines)} lines, ${num(f.skipped)} skipped)`);
  for (const c of j.captures) {
    out.push(
      `  capture     ${c.file} (${c.format}: ${num(c.exchanges)} exchanges, ${num(c.taken)} of this session, ${num(c.skipped)} lines skipped)`,
    );
    for (const x of c.skippedLines.slice(0, 5)) out.push(`              ${c.file}:${x.line}: skipped: ${oneLine(x.reason, 120)}`);
  }
  out.push(`  branch      ${j.branch}${j.branches.length > 1 ? ` (of ${j.branches.map((b) => b.name).join(', ')})` : ''}`);
  out.push(
    `  events      ${num(j.counts.events)}   items ${num(j.counts.items)}   requests ${num(j.counts.requests)}   compactions ${num(j.counts.compactions)}`,
  );
  out.push('');
  out.push('Requests');
  if (j.requests.length === 0) out.push('  (none)');
  const joined = j.captures.length > 0;
  for (const r of j.requests) out.push(`  ${requestLine(r, joined)}`);
  out.push('');
  out.push('Compactions');
  if (j.compactions.length === 0) out.push('  (none)');
  for (const c of j.compactions) {
    out.push(`  ${compactionLine(c)}`);
    for (const a of c.attempts) out.push(`    attempt ${attemptLine(j.requests[a])}`);
  }
  for (const run of j.unloggedAttempts) {
    out.push('  (not in the log)  summarizer attempts only the wire shows');
    for (const a of run) out.push(`    attempt ${attemptLine(j.requests[a])}`);
  }
  out.push('');
  const d = j.counts.diagnostics;
  out.push(`Diagnostics (${d.error} errors, ${d.warning} warnings, ${d.info} info)`);
  for (const x of j.diagnostics) out.push(`  ${diagnosticLine(x)}`);
  return out.join('\n');
}

type InspectJson = ReturnType<typeof inspectJson>;
type JoinedRow = InspectJson['requests'][number];

/** One request as `inspect` lists it; `joined`: the session has a capture (where each is known from, its HTTP status). */
export function requestLine(r: JoinedRow, joined: boolean): string {
  const finish = r.finish ? r.finish.raw : r.error ? 'error' : '—';
  const from = joined ? `${r.source.padEnd(4)} ${r.status === null ? '   ' : String(r.status)} ` : '';
  const seq = r.seq === null ? 'wire only' : `seq ${String(r.seq).padEnd(7)}`;
  return `#${String(r.index).padEnd(4)} ${from}${seq.padEnd(11)} ${r.purpose.padEnd(10)} ${(r.model ?? '?').padEnd(22)} in ${num(r.reportedInputTokens).padStart(9)}  out ${num(r.outputTokens).padStart(7)}  ${finish}${r.error ? `: ${oneLine(r.error.message, 60)}` : ''}`;
}

/** One compaction as `inspect` lists it. */
export function compactionLine(c: InspectJson['compactions'][number]): string {
  return `${c.id}  ${c.trigger}  ${c.outcome ?? 'open (no end)'}  pre ${num(c.preTokens)}  post ${num(c.postTokens)}  seqs ${c.startSeq ?? '?'}–${c.endSeq ?? '?'}${c.strategy ? `  strategy ${c.strategy}` : ''}`;
}

/** One finding as `inspect` lists it. */
export function diagnosticLine(x: InspectJson['diagnostics'][number]): string {
  return `${x.severity.padEnd(7)} ${x.rule}  ${x.file ?? ''}${x.line ? `:${x.line}` : ''}  ${x.message}`;
}

function attemptLine(r: JoinedRow | undefined): string {
  if (!r) return '?';
  const status = r.status === null ? 'status unknown' : `HTTP ${r.status}`;
  const finish = r.finish ? `, finish ${r.finish.raw}` : '';
  const dur = 'wire' in r ? (r.wire?.durationMs ?? null) : null;
  const ms = dur !== null ? `, ${num(Math.round(dur))} ms` : '';
  const err = r.error ? `: ${oneLine(r.error.message, 80)}` : '';
  return `#${r.index} (${r.source}) ${status}${finish}${ms}${err}`;
}

export function renderView(j: ReturnType<typeof viewJson>): string {
  const out: string[] = [];
  const r = j.request;
  out.push(
    `Request #${r.index} (${r.id}) at seq ${r.seq}: ${r.purpose}, ${r.provider ?? '?'}/${r.model ?? '?'}, window ${num(r.window)}, reported input ${num(r.reportedInputTokens)} tokens`,
  );
  out.push('');
  out.push('System');
  if (j.system === null) out.push('  (unknown: not recorded in the log)');
  else for (const b of j.system) out.push(`  ${blockPreview(b)}`);
  out.push(`Tools: ${j.tools === null ? 'unknown (not recorded in the log)' : j.tools.map((t) => t.name).join(', ') || '(none)'}`);
  out.push('');
  out.push(`Items (${j.items.length})`);
  for (const it of j.items) {
    const d = it.derivation ? ` <${it.derivation.kind}${it.derivation.kind === 'checkpoint' ? ` ${it.derivation.compactionId}` : ''}>` : '';
    const blocks = it.blocks === null ? '(masked; reference text not recorded)' : it.blocks.map(blockPreview).join(' | ');
    out.push(
      `  ${it.id.padEnd(14)} ${it.role.padEnd(9)} ${it.kind.padEnd(11)} ${it.rendition === 'masked' ? '[masked] ' : ''}${d} ${oneLine(blocks, 110)}`,
    );
    out.push(`  ${''.padEnd(14)} from seqs ${it.provenance.join(', ')}`);
  }
  if (j.todo) {
    out.push('');
    out.push(`Todo (after ${j.todo.after ?? 'start'}): ${j.todo.todos.map((t) => `[${t.status}] ${oneLine(t.content, 40)}`).join('; ')}`);
  }
  if (j.unknowns.length > 0) {
    out.push('');
    out.push('Not known from the log');
    for (const u of j.unknowns) out.push(`  - ${u}`);
  }
  const changed = j.fates.filter((f) => f.fate !== 'verbatim');
  out.push('');
  out.push(`Fates of raw items: ${j.fates.length} items, ${j.fates.length - changed.length} verbatim`);
  for (const f of changed) {
    const extra = 'by' in f && f.by ? ` by ${f.by}` : '';
    const reason = 'reason' in f ? ` (${f.reason})` : '';
    const compaction = 'compactionId' in f ? ` [${f.compactionId}]` : '';
    out.push(`  ${f.id.padEnd(14)} ${f.fate}${compaction}${extra}${reason}`);
  }
  return out.join('\n');
}

export function eventSummary(e: LogEvent): string {
  switch (e.kind) {
    case 'item':
      return `${e.op.op} ${e.item.id} ${e.item.role}: ${oneLine(e.item.blocks.map(blockPreview).join(' | '), 90)}`;
    case 'request':
      return `${e.id} ${e.purpose}${e.compactionId ? ` for ${e.compactionId}` : ''}`;
    case 'response':
      return `${e.request} ${e.finish?.raw ?? ''}${e.error ? ` error ${oneLine(e.error.message, 60)}` : ''}`;
    case 'header':
      return [
        e.system !== undefined ? 'system' : '',
        e.tools !== undefined ? 'tools' : '',
        e.route ? `route ${e.route.provider ?? ''}/${e.route.model ?? ''}` : '',
      ]
        .filter(Boolean)
        .join(', ');
    case 'record':
    case 'unknown':
      return e.type + ('summary' in e && e.summary ? `: ${oneLine(e.summary, 80)}` : '');
    case 'compaction/start':
    case 'compaction/summary':
    case 'compaction/summary-error':
    case 'compaction/end':
      return e.id;
    case 'session':
      return `${e.id}${e.harness ? ` (${e.harness})` : ''}`;
    default:
      return '';
  }
}

export function renderEvent(e: LogEvent, file: string, line: number): string {
  return `${String(e.seq).padStart(7)}  ${file}:${line}  ${e.kind.padEnd(26)} ${eventSummary(e)}`;
}
