import type { DshEvent } from './decode';
import { type Obj, isObj, nat, num, oneLine, str } from './json';

/**
 * A short one-line description of a record that the canonical model keeps only as a `record`
 * event. Cheap by design: a few fields read, nothing rendered; undefined when there is nothing
 * worth saying.
 */

function chunkSummary(chunk: Obj): string | undefined {
  const type = str(chunk.type);
  if (type === undefined) return undefined;
  const index = num(chunk.index);
  const at = index === undefined ? '' : ` #${index}`;
  switch (type) {
    case 'block-start':
      return `block-start${at} ${str(chunk.blockType) ?? '?'}`;
    case 'block-end': {
      const b = isObj(chunk.block) ? chunk.block : {};
      return `block-end${at} ${str(b.type) ?? '?'}`;
    }
    case 'text-delta':
    case 'reasoning-delta': {
      const text = str(chunk.text);
      return text === undefined ? `${type}${at}` : `${type}${at} ${JSON.stringify(oneLine(text, 60))}`;
    }
    case 'tool-call-delta': {
      const name = str(chunk.name);
      return `${type}${at}${name === undefined ? '' : ` ${name}`}`;
    }
    case 'usage': {
      const u = isObj(chunk.usage) ? chunk.usage : {};
      const parts = [
        ['in', u.inputTokens],
        ['out', u.outputTokens],
        ['cache read', u.cacheReadTokens],
        ['cache write', u.cacheWriteTokens],
        ['reasoning', u.reasoningTokens],
      ]
        .filter(([, v]) => nat(v) !== undefined)
        .map(([k, v]) => `${String(k)} ${String(v)}`);
      return `usage: ${parts.join(', ')}`;
    }
    case 'finish': {
      const r = isObj(chunk.reason) ? chunk.reason : {};
      const f = isObj(r.failure) ? r.failure : undefined;
      const code = f ? str(f.code) : undefined;
      return `finish: ${str(r.kind) ?? '?'}${code === undefined ? '' : ` (${code})`}`;
    }
    default:
      return type;
  }
}

function turnStep(d: Obj): string {
  const turn = num(d.turn);
  const step = num(d.step);
  return [turn === undefined ? '' : `turn ${turn}`, step === undefined ? '' : `step ${step}`].filter(Boolean).join(' ');
}

export function recordSummary(ev: DshEvent): string | undefined {
  const d = isObj(ev.data) ? ev.data : undefined;
  if (!d) return undefined;
  const s = summaryOf(ev.type, d);
  return s === undefined || s === '' ? undefined : oneLine(s);
}

function summaryOf(type: string, d: Obj): string | undefined {
  switch (type) {
    case 'assistant/chunk':
      return isObj(d.chunk) ? chunkSummary(d.chunk) : undefined;
    case 'turn/start':
    case 'step/start':
    case 'step/end':
      return turnStep(d);
    case 'turn/end': {
      const r = isObj(d.reason) ? d.reason : {};
      return `${turnStep(d)} ${str(r.kind) ?? ''}`;
    }
    case 'tool/call':
      return `${str(d.name) ?? '?'} ${str(d.callId) ?? ''}`;
    case 'session/title':
      return str(d.title);
    case 'agent/inbox/spliced': {
      const inserted = Array.isArray(d.inserted) ? d.inserted.length : 0;
      const removed = nat(d.removedCount) ?? 0;
      return `${str(d.target) ?? ''}: ${inserted} inserted, ${removed} removed`;
    }
    case 'hook/invoked':
      return `${str(d.point) ?? ''} ${str(d.handlerId) ?? ''}`;
    case 'hook/result':
      return `${str(d.point) ?? ''} ${str(d.decision) ?? ''}${str(d.stderrSummary) ? `: ${str(d.stderrSummary)}` : ''}`;
    case 'approval/policy':
      return str(d.policy);
    case 'permission/preset':
      return str(d.preset);
    case 'sandbox/mode':
      return str(d.mode);
    case 'plan/mode':
      return str(d.mode) ?? (typeof d.active === 'boolean' ? String(d.active) : undefined);
    case 'command/run':
      return `/${str(d.name) ?? '?'}${str(d.args) ? ` ${str(d.args)}` : ''}`;
    case 'command/done':
      return `${str(d.kind) ?? ''}${str(d.text) ? `: ${str(d.text)}` : ''}`;
    case 'goal/change':
      return str(d.operation);
    case 'subagent/descriptor':
      return `${str(d.provider) ?? ''} ${str(d.mode) ?? ''}: ${str(d.label) ?? ''}`;
    case 'tool/code-dispatch-start':
    case 'tool/code-dispatch':
      return `${str(d.name) ?? '?'} ${str(d.subCallId) ?? ''}`;
    case 'tool-workflow/run-start':
      return str(d.name);
    case 'tool-workflow/run-end':
      return str(d.stopReason);
    case 'tool-workflow/agent-start':
      return `${str(d.label) ?? ''} ${str(d.phase) ?? ''}`;
    case 'tool-workflow/agent-end':
      return str(d.outcome);
    case 'compaction/prune': {
      const seqs = Array.isArray(d.shadowedSeqs) ? d.shadowedSeqs.join(', ') : '?';
      const tokens = nat(d.shadowedTokenCount);
      return `prunes seq ${seqs}${tokens === undefined ? '' : ` (${tokens} tokens)`}`;
    }
    case 'llm/retry':
    case 'llm/retry-started': {
      const e = isObj(d.error) ? d.error : isObj(d.failure) ? d.failure : {};
      const attempt = nat(d.attempt);
      return `${attempt === undefined ? '' : `attempt ${attempt} `}${str(e.code) ?? ''}${str(e.message) ? `: ${str(e.message)}` : ''}`;
    }
    default:
      return undefined;
  }
}
