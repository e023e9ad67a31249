import { parseContextOverflow } from './overflow-messages';

/*
 * Recognises "the request does not fit the model's window" in a provider's error, and the window it
 * reports. A context overflow is not retried and does not advance the model chain: the strategy
 * repartitions (cosh), and a reported window is authoritative over the pinned one.
 *
 * The four providers' own wordings are read by parseContextOverflow (src/main/providers/overflow-messages.ts,
 * the same module the mock builds its overflow errors from, so both sides agree on the text). The
 * OpenAI-compatible local servers word it differently; their messages are recognised here.
 */

export interface Overflow {
  /** The window the provider reported, in tokens; null when its message gives none. */
  readonly window: number | null;
}

const int = (s: string | undefined): number | null => {
  if (s === undefined) return null;
  const n = Number(s.replace(/[,_\s]/g, ''));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
};

/** Local / compatible servers: [pattern, index of the capture holding the window (0: none)]. */
const LOCAL: readonly (readonly [RegExp, number])[] = [
  // LM Studio: "… the model is loaded with context length of only 4096 tokens"
  [/context length of only\s*([\d,]+)\s*tokens/i, 1],
  // Mistral-style: "Prompt contains 40000 tokens … too large for model with 32768 maximum context length"
  [/too large for model with\s*([\d,]+)\s*maximum context length/i, 1],
  // llama.cpp: "the request exceeds the available context size" (its body's n_ctx gives the window)
  [/exceeds the available context size/i, 0],
  // Ollama: "prompt too long; exceeded max context length by 123 tokens"
  [/exceeded max context length/i, 0],
];

/** A window field some servers put in the error body (llama.cpp's n_ctx). */
function bodyWindow(body: string | null): number | null {
  if (!body) return null;
  const m = /"n_ctx"\s*:\s*(\d+)/.exec(body);
  return m ? int(m[1]) : null;
}

/**
 * An overflow from a 4xx status (or an in-stream error: status null) and the provider's error text
 * and body; null when it is not one. 5xx are never overflows: they are retried.
 */
export function parseOverflow(status: number | null, text: string, body: string | null = null): Overflow | null {
  if (status !== null && (status < 400 || status >= 500)) return null;
  const hay = body && !text.includes(body) ? `${text}\n${body}` : text;
  const known = parseContextOverflow(status ?? 0, hay);
  if (known) return { window: known.window ?? bodyWindow(body) };
  for (const [re, group] of LOCAL) {
    const m = re.exec(hay);
    if (!m) continue;
    return { window: (group > 0 ? int(m[group]) : null) ?? bodyWindow(body) };
  }
  return null;
}
