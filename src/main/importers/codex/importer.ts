import type { JsonLine } from '../../reader/types';
import type { FileImport, ImportSink } from '../types';
import { closeCall, flushPending } from './calls';
import { flushBlock } from './context-block';
import { readRecord } from './dispatch';
import { newestVerified } from '../../../shared/compat/newest';
import { classify, payloadType } from './records';
import { CodexState } from './state';
import { holdLine, release, startHold } from './summarizer';
import { endCompaction, reportEstimate } from './token-counts';

/** Messages held back while deciding whether they are a re-injected initial context, at most. */
const MAX_BLOCK = 256;

/**
 * One rollout file → canonical events. See `index.ts` for the mapping rules. Lines are read in
 * order: messages outside a turn are held until the next record says whether they are a turn's
 * context (./context-block.ts), lines that may be a compaction's summarizer call until the log
 * says whose call they are (./summarizer.ts); everything else is read as usual (./dispatch.ts).
 * The cross-line state (./state.ts): the live history (item ids in surface order), the open model
 * call, the open turn, held-back context messages, and what compactions need (content
 * fingerprints, the last reported context size, Codex's own estimates).
 */
export class CodexFileImport implements FileImport {
  private readonly s: CodexState;

  constructor(sink: ImportSink, path: string) {
    this.s = new CodexState(sink, path);
  }

  line(l: JsonLine): void {
    const s = this.s;
    s.lines++;
    const rec = classify(l.value, s.lines === 1);
    if (s.held.kind !== null && holdLine(s, l, rec)) return;
    if (!s.turn.open && rec.type === 'response_item' && payloadType(rec) === 'message') {
      s.block.push(l);
      if (s.block.length >= MAX_BLOCK) flushBlock(s, null);
      return;
    }
    if (s.block.length > 0) flushBlock(s, rec);
    if (startHold(s, l, rec)) return;
    readRecord(s, l, rec);
  }

  end(): void {
    const s = this.s;
    const h = s.held.take();
    if (h) release(s, h);
    if (s.block.length > 0) flushBlock(s, null);
    flushPending(s);
    endCompaction(s);
    closeCall(s);
    reportEstimate(s, null);
    if (s.withoutOutput) {
      const w = s.withoutOutput;
      s.report(
        'CODEX_USAGE_WITHOUT_OUTPUT',
        'info',
        `${w.count} usage report${w.count === 1 ? '' : 's'} (first at line ${w.line}) follow${w.count === 1 ? 's' : ''} no logged output item: ${w.count === 1 ? 'a model call is' : 'model calls are'} shown with ${w.count === 1 ? 'its' : 'their'} usage and no output.`,
        [],
        w.line,
      );
    }
    for (const [type, u] of s.unknown) {
      s.report(
        'UNKNOWN_RECORDS',
        'warning',
        `${u.count} record${u.count === 1 ? '' : 's'} of type "${type}", which this importer (checked against Codex ${newestVerified('codex') ?? '?'} on the wire) does not know (first at line ${u.line}); kept as unknown events.${type.startsWith('response_item/') ? ' They are history items the model may have seen: the model view may be incomplete.' : ''}`,
        u.seqs,
        u.line,
      );
    }
  }
}
