import type { EventOf } from '../../../shared/model/event';
import { boundary } from './compaction';
import { registerRecord } from './dag';
import type { ClaudeFile } from './file';
import { unknownRecord } from './health';
import { type Obj, id, isObj, nat, obj, oneLine, str } from './json';
import { KNOWN_SYSTEM_SUBTYPES } from './known';
import { microcompact } from './microcompact';
import { branchFor } from './placement';
import { locOf } from './skeleton';

// Records that change nothing the model sees (see ./importer.ts, RECORDS). `system` lines also
// route compaction and microcompaction boundaries to ./compaction.ts and ./microcompact.ts.

export function system(f: ClaudeFile, v: Obj): void {
  const subtype = str(v.subtype) ?? '?';
  if (subtype === 'compact_boundary') return boundary(f, v);
  if (subtype === 'microcompact_boundary') return microcompact(f, v);
  if (!KNOWN_SYSTEM_SUBTYPES.has(subtype)) return unknownRecord(f, `system/${subtype}`, v);
  let summary: string | undefined;
  if (subtype === 'turn_duration') {
    const ms = nat(v.durationMs);
    const n = nat(v.messageCount);
    if (ms !== undefined) summary = n === undefined ? `${ms} ms` : `${ms} ms, ${n} message${n === 1 ? '' : 's'}`;
  } else if (typeof v.content === 'string') summary = oneLine(v.content);
  record(f, typeName('system/', subtype), v, summary);
}

export function progress(f: ClaudeFile, v: Obj): void {
  const d = obj(v.data);
  const type = str(d?.type) ?? '?';
  if (type === 'agent_progress') {
    const agentId = id(d?.agentId);
    const call = id(v.parentToolUseID);
    if (agentId !== undefined && call !== undefined && !f.s.agentLinks.has(agentId)) f.s.agentLinks.set(agentId, call);
  }
  const hook = str(d?.hookName);
  record(f, typeName('progress/', type), v, hook);
}

/** Records kept as records, with a short summary; `api-request` records are ./api-request.ts. */
export function plain(f: ClaudeFile, type: string, v: Obj): void {
  let summary: string | undefined;
  switch (type) {
    case 'queue-operation':
      summary = str(v.operation);
      break;
    case 'summary': {
      const text = str(v.summary);
      if (text !== undefined) summary = oneLine(text);
      break;
    }
    case 'custom-title':
      summary = str(v.customTitle);
      break;
    case 'ai-title':
      summary = str(v.aiTitle);
      break;
    case 'permission-mode':
      summary = str(v.permissionMode);
      break;
    case 'tag':
      summary = str(v.tag);
      break;
    case 'last-prompt': {
      const text = str(v.lastPrompt);
      if (text !== undefined) summary = oneLine(text);
      break;
    }
    case 'api-request-blob':
      if (typeof v.hash === 'string' && isObj(v.message)) f.api.blob(v.hash, v.message, locOf(f.cur));
      break;
    default:
      break;
  }
  record(f, typeName('', type), v, summary);
}

export function record(f: ClaudeFile, type: string, v: Obj, summary: string | undefined): void {
  const uuid = id(v.uuid);
  // A side question copies the conversation's system records too (turn_duration…): before its
  // question they belong to no branch yet, as its copied messages do, so the question still forks.
  const copyBeforeQuestion = f.aside && !f.fileBranch && uuid !== undefined && f.s.uuids.has(uuid);
  const a = registerRecord(f, v);
  if (copyBeforeQuestion) return;
  const r: EventOf<'record'> = { kind: 'record', type };
  if (summary !== undefined && summary !== '') r.summary = summary;
  const at = str(v.timestamp);
  if (at !== undefined) r.at = at;
  f.emit(branchFor(f, a), r);
}

const typeNames = new Map<string, Map<string, string>>();
/** `prefix + name`, one string per distinct record type however many records have it. */
export function typeName(prefix: string, name: string): string {
  let m = typeNames.get(prefix);
  if (!m) {
    m = new Map();
    typeNames.set(prefix, m);
  }
  let x = m.get(name);
  if (x === undefined) {
    x = prefix + name;
    if (m.size < 1000) m.set(name, x);
  }
  return x;
}
