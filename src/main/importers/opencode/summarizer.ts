/**
 * How an OpenCode version builds its summarizer call, as seen on the wire (the fidelity runs):
 * - `history` (1.0.162, 1.2.27, 1.3.2): the model's messages, the compaction's user message
 *   ("What did we do so far?") ending with OpenCode's compaction prompt;
 * - `anchored` (1.14.41): a system prompt of its own, the model's messages without the
 *   compaction's user message, then one user message with the prompt ("Create a new anchored
 *   summary from the conversation history above…");
 * - `transcript` (from TRANSCRIPT_FROM; 1.18.33): a system prompt of its own and one user message
 *   holding the conversation rendered as text ("Here is the conversation so far:
 *   <conversation>…") and the prompt.
 * No version between 1.3.2 and 1.14.34 was published on npm. Which release between 1.14.41 and
 * 1.18.33 moved to the transcript is not known (1.17.20 has no linux-x64 binary to run); 1.18 is
 * taken as the first. None of the prompts is recorded.
 */
export type SummarizerShape = 'history' | 'anchored' | 'transcript';

const ANCHORED_FROM: readonly [number, number] = [1, 14];
const TRANSCRIPT_FROM: readonly [number, number] = [1, 18];

const atLeast = (v: readonly [number, number], from: readonly [number, number]): boolean =>
  v[0] > from[0] || (v[0] === from[0] && v[1] >= from[1]);

/** The shape of `version`'s summarizer call (`1.18.33`, `v1.16.0`, `1.17.3-aiand.1`; unknown: `history`). */
export function summarizerShape(version: string | undefined): SummarizerShape {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return 'history';
  const v: [number, number] = [Number(m[1]), Number(m[2])];
  if (atLeast(v, TRANSCRIPT_FROM)) return 'transcript';
  return atLeast(v, ANCHORED_FROM) ? 'anchored' : 'history';
}
