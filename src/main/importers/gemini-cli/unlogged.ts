import type { EventOf } from '../../../shared/model/event';
import { grouped } from '../../../shared/grouped';
import { GEMINI_COMPRESSION_READ, type GeminiCompressionRule, geminiCompressionRule } from '../../../shared/compat/gemini-compression';

/*
 * A compression Gemini CLI may have run without writing it to the file (versions before 0.44;
 * the rule: src/shared/compat/gemini-compression.ts). Only on the file's evidence: once a response
 * reports a prompt token count at or over the client's threshold, every later agent request of the
 * chat may have gone out with a summary, an acknowledgement and a kept tail in place of the older
 * messages (the same process keeps the compressed history; a resumed one rebuilds it whole from the
 * file, and the file does not say which ran). Each such request names it (RequestEvent.unlogged,
 * `history`); below the threshold nothing is named. A file that writes its list back (`$set` of
 * `messages`, 0.44 on) records its compressions, so it names none.
 */

const fmt = (n: number): string => grouped(n);

export class UnloggedCompression {
  /** The first response at or over the threshold, and the sentence every later request carries. */
  private why: string | null = null;

  /** A response's prompt token count (`tokens.input`), with its model, its request and the message that holds it. */
  noteUsage(prompt: number, model: string | null, request: string, message: string): void {
    if (this.why !== null) return;
    const rule = geminiCompressionRule(model ?? '');
    if (prompt < rule.threshold) return;
    this.why = sentence(prompt, model, `the reply to ${request} (message ${message})`, rule);
  }

  /** What the next agent request names; `listWritten`: the file records its compressions. */
  beforeRequest(listWritten: boolean): EventOf<'request'>['unlogged'] {
    if (listWritten || this.why === null) return undefined;
    return [{ why: this.why, history: true }];
  }
}

function sentence(prompt: number, model: string | null, reply: string, rule: GeminiCompressionRule): string {
  const limits = new Set(rule.limits.map((l) => l.limit));
  const of =
    limits.size === 1
      ? `${rule.fraction} of ${model ?? 'the model'}'s ${fmt(rule.limits[0]?.limit ?? 0)}-token limit`
      : `${rule.fraction} of the lowest of ${model ?? 'the model'}'s token limits (${rule.limits.map((l) => `${fmt(l.limit)} in ${l.version}`).join(', ')})`;
  return (
    `Gemini CLI may have compressed the history before this request without writing it to the file: ` +
    `${reply} reported ${fmt(prompt)} prompt tokens, at or over its automatic compression threshold of ${fmt(rule.threshold)} ` +
    `(${of}; the rule of versions ${GEMINI_COMPRESSION_READ.join(', ')}), and versions before 0.44 record no compression. ` +
    `If it did (the same process keeps the compressed history; a resumed one reads the file whole), the model was sent a summary ` +
    `and an acknowledgement in place of the messages before a user turn: which messages were summarised and what the summary ` +
    `says are not in the file`
  );
}
