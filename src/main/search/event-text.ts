import type { Block } from '../../shared/model/content';
import type { LogEvent } from '../../shared/model/event';

/**
 * The searchable texts of one event, each named by where it is shown ("user text", "tool
 * result", "compaction summary"…), with whether part of it was left out of memory (elided: the
 * loader keeps a preview of long texts and re-reads the rest on demand).
 */
export interface EventText {
  readonly where: string;
  readonly text: string;
  readonly elided: boolean;
}

function blockTexts(blocks: readonly Block[], prefix: string, out: EventText[]): void {
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        out.push({ where: `${prefix} text`, text: b.text, elided: (b.elided ?? 0) > 0 });
        break;
      case 'reasoning':
        if (!b.redacted) out.push({ where: `${prefix} reasoning`, text: b.text, elided: (b.elided ?? 0) > 0 });
        break;
      case 'tool_call':
        out.push({ where: `${prefix} tool call ${b.name}`, text: `${b.name} ${b.input}`, elided: (b.elided ?? 0) > 0 });
        break;
      case 'tool_result':
        for (const c of b.content) {
          if (c.type === 'text' || (c.type === 'reasoning' && !c.redacted)) {
            out.push({ where: 'tool result', text: c.text, elided: (c.elided ?? 0) > 0 });
          }
        }
        break;
      case 'opaque':
        out.push({ where: `${prefix} opaque`, text: b.label, elided: false });
        break;
      case 'image':
        break;
    }
  }
}

const plain = (where: string, text: string | undefined): EventText[] => (text ? [{ where, text, elided: false }] : []);

export function eventTexts(e: LogEvent): EventText[] {
  const out: EventText[] = [];
  switch (e.kind) {
    case 'item':
      blockTexts(e.item.blocks, e.item.role, out);
      break;
    case 'header':
      if (e.system) blockTexts(e.system, 'system prompt', out);
      for (const t of e.tools ?? []) out.push(...plain('tool schema', [t.name, t.description ?? ''].join(' ')));
      break;
    case 'mask':
      if (e.reference) blockTexts(e.reference, 'mask reference', out);
      break;
    case 'request':
      out.push(...plain('request', `${e.id} ${e.purpose}`));
      if (e.input?.instruction) blockTexts(e.input.instruction, 'summarizer instruction', out);
      break;
    case 'response':
    case 'compaction/summary-error':
    case 'compaction/end':
      out.push(...plain(`${e.kind} error`, e.error?.message));
      break;
    case 'compaction/summary':
      blockTexts(e.summary, 'compaction summary', out);
      break;
    case 'mapreduce/map':
      if (e.summary) blockTexts(e.summary, 'map summary', out);
      break;
    case 'mapreduce/reduce':
      if (e.output) blockTexts(e.output, 'reduction', out);
      break;
    case 'mapreduce/correction':
      if (e.output) blockTexts(e.output, 'correction', out);
      break;
    case 'mapreduce/audit':
      for (const i of e.issues ?? []) out.push(...plain('audit issue', i));
      break;
    case 'todo':
      for (const t of e.todos) out.push(...plain('todo', t.content));
      break;
    case 'session':
      out.push(...plain('session', [e.id, e.title ?? '', e.cwd ?? ''].join(' ')));
      break;
    case 'record':
      out.push(...plain('record', `${e.type}${e.summary ? ` ${e.summary}` : ''}`));
      break;
    case 'unknown':
      out.push(...plain('unknown record', e.type));
      break;
    default:
      break;
  }
  return out;
}
