import type { NormRequest } from '../../wire/normalize';

/*
 * What a request only the wire shows was for. A summarizer call is told by the compaction prompt
 * its harness sends, anywhere in its user text (a continuation after a cut summary repeats it):
 *  - Claude Code: "create a detailed summary of the conversation" (its /compact and auto-compact
 *    prompt, as the client sends it);
 *  - Codex: "CONTEXT CHECKPOINT COMPACTION" (openai/codex, codex-rs core/templates/compact/prompt.md,
 *    Apache-2.0);
 *  - Gemini CLI: the instruction after the history, "… generate the <state_snapshot>." (0.22) or
 *    "… generate the updated <state_snapshot>." (0.38 on), and from 0.38 its verification call,
 *    "Critically evaluate the <state_snapshot> you just generated" (google-gemini/gemini-cli,
 *    chatCompressionService.ts, Apache-2.0; the fidelity runs' wire). Not "<state_snapshot>" alone:
 *    an agent request after a compression carries the summary under that tag;
 *  - Palimpsest's own strategies and the Rind / cosh handoff prompts carry a `<summary>` request
 *    too, but their harnesses log every summarizer call, so they never reach this test.
 * Anything else the wire alone shows is a side call (titles, topic checks, quota probes), unless it
 * carries the agent's own system prompt and tools: then it is an agent request the log left out.
 */

export const SUMMARIZER_MARKERS: readonly { readonly harness: string; readonly text: string }[] = [
  { harness: 'claude-code', text: 'create a detailed summary of the conversation' },
  { harness: 'codex', text: 'CONTEXT CHECKPOINT COMPACTION' },
  { harness: 'gemini-cli', text: 'generate the <state_snapshot>' },
  { harness: 'gemini-cli', text: 'generate the updated <state_snapshot>' },
  { harness: 'gemini-cli', text: 'Critically evaluate the <state_snapshot> you just generated' },
];

/** The marker a request's user text carries, if any. */
export function summarizerMarker(norm: NormRequest): string | null {
  for (const p of norm.parts) {
    if (p.role !== 'user' || p.type !== 'text') continue;
    const hit = SUMMARIZER_MARKERS.find((m) => p.text.includes(m.text));
    if (hit) return hit.text;
  }
  return null;
}

/** Codex says what each request is for in its `x-codex-turn-metadata` header (`request_kind`). */
export function codexRequestKind(headers: readonly (readonly [string, string])[]): string | null {
  const v = headers.find(([k]) => k.toLowerCase() === 'x-codex-turn-metadata')?.[1];
  if (!v) return null;
  try {
    const o = JSON.parse(v) as { request_kind?: unknown };
    return typeof o.request_kind === 'string' ? o.request_kind : null;
  } catch {
    return null;
  }
}

/** Log purposes that are summarizer calls (of a compaction, a map, a reduction, an audit …). */
export function isSummarizerPurpose(purpose: string): boolean {
  return purpose !== 'agent' && purpose !== 'other';
}

const same = (a: NormRequest['system'], b: NormRequest['system']): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Whether a wire-only request carries the agent's own system prompt and tool list. */
export function looksLikeAgent(norm: NormRequest, agents: readonly NormRequest[]): boolean {
  return agents.some(
    (a) => same(a.system, norm.system) && (a.tools?.length ?? 0) === (norm.tools?.length ?? 0) && (norm.tools?.length ?? 0) > 0,
  );
}
