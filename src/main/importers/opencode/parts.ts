import type { Block, LeafBlock } from '../../../shared/model/content';
import type { Finish, Usage } from '../../../shared/model/event';
import { isObj, nat, obj, str, type Obj } from '../json';

/**
 * What one OpenCode part is to the model, as `toModelMessages` in anomalyco/opencode
 * packages/opencode/src/session/message-v2.ts renders it. Shared by the import and by
 * rehydrate, which rebuilds an event's full text from the part's line.
 */

/** What a completed tool part whose output was pruned (`state.time.compacted`) shows the model. */
export const CLEARED = '[Old tool result content cleared]';
/** What a pending or running tool part shows the model (the call was interrupted). */
export const INTERRUPTED = '[Tool execution was interrupted]';
/** What a user message's compaction part shows the model. */
export const COMPACTION_QUESTION = 'What did we do so far?';
/** What a user message's subtask part shows the model. */
export const SUBTASK_NOTE = 'The following tool was executed by the user';

const text = (t: string): LeafBlock => ({ type: 'text', text: t });

/** The blocks a user message's part adds, or null when the model is not shown it. */
export function userBlocks(part: Obj): LeafBlock[] | null {
  switch (part.type) {
    case 'text':
      return part.ignored === true ? null : [text(str(part.text) ?? '')];
    case 'file': {
      const mime = str(part.mime) ?? '';
      // text/plain and directory files reach the model as the text parts OpenCode adds beside them.
      if (mime === 'text/plain' || mime === 'application/x-directory') return null;
      if (mime.startsWith('image/')) return [{ type: 'image', mediaType: mime }];
      return [{ type: 'opaque', label: `file ${str(part.filename) ?? ''} (${mime || 'no type'})`.replace('  ', ' ') }];
    }
    case 'compaction':
      return [text(COMPACTION_QUESTION)];
    case 'subtask':
      return [text(SUBTASK_NOTE)];
    default:
      return null;
  }
}

/** The assistant blocks of a text or reasoning part (null for other parts). */
export function assistantBlocks(part: Obj): Block[] | null {
  if (part.type === 'text') return [text(str(part.text) ?? '')];
  if (part.type === 'reasoning') return [{ type: 'reasoning', text: str(part.text) ?? '' }];
  return null;
}

export const callIdOf = (part: Obj): string => str(part.callID) ?? str(part.id) ?? '';

/** A tool part's call as the model wrote it. */
export function toolCall(part: Obj): Block {
  const state = obj(part.state) ?? {};
  return { type: 'tool_call', id: callIdOf(part), name: str(part.tool) ?? '', input: JSON.stringify(state.input ?? {}) };
}

/**
 * A tool part's result as recorded (a pruned output whole: the mask shows what the model saw
 * after pruning), or an interrupted call's stand-in.
 */
export function toolResult(part: Obj): Block {
  const state = obj(part.state) ?? {};
  const callId = callIdOf(part);
  switch (state.status) {
    case 'completed':
      return { type: 'tool_result', callId, content: [text(str(state.output) ?? '')] };
    case 'error': {
      const meta = obj(state.metadata);
      const shown = meta?.interrupted === true ? str(meta.output) : undefined;
      if (shown !== undefined) return { type: 'tool_result', callId, content: [text(shown)] };
      return { type: 'tool_result', callId, content: [text(str(state.error) ?? '')], isError: true };
    }
    default:
      return { type: 'tool_result', callId, content: [text(INTERRUPTED)], isError: true };
  }
}

/** When the tool part's output was pruned (epoch ms), or null. */
export function prunedAt(part: Obj): number | null {
  const state = obj(part.state);
  const time = obj(state?.time);
  return state?.status === 'completed' && typeof time?.compacted === 'number' ? time.compacted : null;
}

/** Tokens as OpenCode records them (`{input, output, reasoning, cache: {read, write}}`); input excludes cache. */
export function usageOf(tokens: unknown): Usage | undefined {
  if (!isObj(tokens)) return undefined;
  const cache = obj(tokens.cache);
  const u: Usage = {};
  const set = (k: keyof Usage, v: unknown): void => {
    const n = nat(v);
    if (n !== undefined) u[k] = n;
  };
  set('input', tokens.input);
  set('output', tokens.output);
  set('reasoning', tokens.reasoning);
  set('cacheRead', cache?.read);
  set('cacheWrite', cache?.write);
  return Object.keys(u).length > 0 ? u : undefined;
}

/** OpenCode's finish strings are the AI SDK's: `stop`, `tool-calls`, `length`, `content-filter`, `error`, `other`, `unknown`. */
export function finishOf(raw: unknown): Finish | undefined {
  const r = str(raw);
  if (r === undefined) return undefined;
  const reason: Finish['reason'] =
    r === 'stop'
      ? 'stop'
      : r === 'tool-calls' || r === 'tool_calls'
        ? 'tool_calls'
        : r === 'length'
          ? 'length'
          : r === 'content-filter'
            ? 'refusal'
            : r === 'error'
              ? 'error'
              : 'unknown';
  return { raw: r, reason };
}

/** The error an assistant message records (`{name, data: {message}}`), as a response error. */
export function errorOf(e: unknown): { code?: string; message: string } | undefined {
  if (!isObj(e)) return undefined;
  const data = obj(e.data);
  const message = str(data?.message) ?? str(e.message) ?? 'no message recorded';
  const name = str(e.name);
  return name ? { code: name, message } : { message };
}
