import type { Finish, FinishReason } from '../../shared/model/event';
import type { SummaryError } from '../../shared/strategies/types';

/*
 * Finish reasons, normalised per protocol with the raw string kept, and the completion-integrity
 * rule of cosh: a summary is evidence only when the stream reported a natural finish (stop,
 * Claude's end_turn, Gemini's STOP) and carried text. Length, refusal, pause, unknown and missing
 * finishes are rejected as 'incomplete' (their usage is still recorded by the caller); a natural
 * finish without text is 'empty'.
 */

/** The stream ended without any terminal signal. */
export const MISSING_FINISH: Finish = { raw: 'missing', reason: 'unknown' };

const f = (raw: string, reason: FinishReason): Finish => ({ raw, reason });

export function anthropicFinish(raw: string): Finish {
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return f(raw, 'stop');
    case 'tool_use':
      return f(raw, 'tool_calls');
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return f(raw, 'length');
    case 'pause_turn':
      return f(raw, 'pause');
    case 'refusal':
      return f(raw, 'refusal');
    default:
      return f(raw, 'unknown');
  }
}

/** Chat Completions; `refused`: the message carried a refusal instead of content. */
export function chatFinish(raw: string, refused: boolean): Finish {
  if (refused) return f(raw, 'refusal');
  switch (raw) {
    case 'stop':
      return f(raw, 'stop');
    case 'length':
      return f(raw, 'length');
    case 'tool_calls':
    case 'function_call':
      return f(raw, 'tool_calls');
    case 'content_filter':
      return f(raw, 'refusal');
    default:
      return f(raw, 'unknown');
  }
}

/** Responses: the terminal status, with incomplete_details.reason folded into raw ("incomplete:max_output_tokens"). */
export function responsesFinish(status: string, incompleteReason: string | null, refused: boolean, toolCall: boolean): Finish {
  if (status === 'incomplete') {
    const raw = incompleteReason ? `incomplete:${incompleteReason}` : 'incomplete';
    if (incompleteReason === 'max_output_tokens') return f(raw, 'length');
    if (incompleteReason === 'content_filter') return f(raw, 'refusal');
    return f(raw, 'unknown');
  }
  if (status === 'completed') return refused ? f(status, 'refusal') : toolCall ? f(status, 'tool_calls') : f(status, 'stop');
  if (status === 'failed') return f(status, 'error');
  if (status === 'cancelled') return f(status, 'cancelled');
  return f(status, 'unknown');
}

const GEMINI_REFUSAL = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);
const GEMINI_ERROR = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS', 'MALFORMED_RESPONSE']);

export function geminiFinish(raw: string): Finish {
  if (raw === 'STOP') return f(raw, 'stop');
  if (raw === 'MAX_TOKENS') return f(raw, 'length');
  // More is coming in a continuation request we deliberately do not make.
  if (raw === 'CONTINUATION') return f(raw, 'pause');
  if (GEMINI_REFUSAL.has(raw)) return f(raw, 'refusal');
  if (GEMINI_ERROR.has(raw)) return f(raw, 'error');
  return f(raw, 'unknown');
}

export interface Judged {
  readonly text: string | null;
  readonly finish: Finish;
  readonly error: SummaryError | null;
}

/** cosh's completion integrity. */
export function judgeCompletion(text: string, finish: Finish | null): Judged {
  const fin = finish ?? MISSING_FINISH;
  if (fin.reason !== 'stop') {
    return {
      text: null,
      finish: fin,
      error: { kind: 'incomplete', message: `summarizer response is incomplete (finish reason: ${fin.raw})` },
    };
  }
  if (text.trim() === '') return { text: null, finish: fin, error: { kind: 'empty', message: 'summarizer response is empty' } };
  return { text, finish: fin, error: null };
}
