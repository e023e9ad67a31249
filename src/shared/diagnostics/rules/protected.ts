import type { Block } from '../../model/content';
import { blockChars } from '../../model/content';
import type { Diagnostic } from '../../model/diagnostic';
import type { ItemRecord } from '../../replay/records';
import { charsOf, finding, list, num } from '../text';
import type { Rule, RuleContext } from '../types';

/**
 * Budget shortening (Rind's 2,000 + 2,000 character shortening, DeepSeek Harness's tool-result pruner)
 * may only shorten tool results. User text, tool arguments and the live plan are protected; they
 * are not masking targets either (cosh).
 */

const PLAN = /todo|plan/i;

function protectedKind(ctx: RuleContext, rec: ItemRecord): string | null {
  if (ctx.facts.isUserInstruction(rec)) return "the user's message";
  if (rec.item.origin !== undefined && PLAN.test(rec.item.origin)) return 'the live plan';
  if (ctx.facts.callsOf(rec).length > 0 && ctx.facts.answersOf(rec).length === 0) return 'a tool call (its arguments)';
  return null;
}

/** Characters of the protected blocks: text outside tool results, and tool-call arguments. */
function protectedChars(blocks: readonly Block[]): { text: number; args: Map<string, number> } {
  let text = 0;
  const args = new Map<string, number>();
  for (const b of blocks) {
    if (b.type === 'text') text += blockChars(b);
    else if (b.type === 'tool_call') args.set(b.id, (args.get(b.id) ?? 0) + blockChars(b));
  }
  return { text, args };
}

export const PROTECTED_TEXT_SHORTENED: Rule = {
  id: 'PROTECTED_TEXT_SHORTENED',
  severities: ['error'],
  title: 'Budget shortening or masking touched user text, tool arguments or the live plan',
  origins: ['000', '001', '004'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const rec of ctx.state.items) {
      const d = rec.item.derivation;
      if (!d) {
        // An underived copy put in place of exactly one protected item, shorter than it: a
        // shortening that does not call itself one (a DSH pruner aimed at a user message).
        const op = ctx.facts.opOf(rec);
        if (op?.op !== 'replace' || op.from !== op.to) continue;
        const orig = ctx.state.itemById.get(op.from);
        if (!orig || orig === rec || orig.item.role !== rec.item.role) continue;
        const kind = protectedKind(ctx, orig);
        const before = charsOf(ctx.facts.blocksOf(orig));
        const after = charsOf(ctx.facts.blocksOf(rec));
        if (!kind || after >= before) continue;
        out.push(
          finding(
            'PROTECTED_TEXT_SHORTENED',
            'error',
            `Item ${rec.id} replaces ${kind} ${orig.id} with a shorter copy (${num(after)} of ${num(before)} characters): budget shortening may only shorten tool results; user constraints, tool arguments and the plan are never cut.`,
            [rec.seq, orig.seq],
          ),
        );
        continue;
      }
      if (d.kind !== 'pruned') continue;
      const orig = ctx.state.itemById.get(d.of);
      if (!orig) continue;
      const kind = protectedKind(ctx, orig);
      if (kind) {
        out.push(
          finding(
            'PROTECTED_TEXT_SHORTENED',
            'error',
            `Item ${rec.id} shortens ${kind} ${orig.id} (${num(d.omitted)} ${d.unit} omitted): budget shortening may only shorten tool results; user constraints, tool arguments and the plan are never cut.`,
            [rec.seq, orig.seq],
          ),
        );
        continue;
      }
      // A mixed item (a user turn holding tool results and text): its text and any call must survive whole.
      const a = protectedChars(ctx.facts.blocksOf(orig));
      const b = protectedChars(ctx.facts.blocksOf(rec));
      const cutArgs = [...a.args].filter(([id, n]) => (b.args.get(id) ?? 0) < n).map(([id]) => id);
      if (b.text < a.text || cutArgs.length > 0) {
        out.push(
          finding(
            'PROTECTED_TEXT_SHORTENED',
            'error',
            `Item ${rec.id} shortens more than the tool results of ${orig.id}: ${cutArgs.length > 0 ? `the arguments of tool call ${cutArgs.join(', ')}` : `${num(a.text - b.text)} characters of its text`} were cut. Only tool-result bodies may be shortened.`,
            [rec.seq, orig.seq],
          ),
        );
      }
    }
    // One finding per mask event, however many protected items it hides.
    for (const e of ctx.facts.ofKinds('mask')) {
      if (!e.masked) continue;
      const hidden: { rec: ItemRecord; kind: string }[] = [];
      for (const id of e.items) {
        const rec = ctx.state.itemById.get(id);
        const kind = rec ? protectedKind(ctx, rec) : null;
        if (rec && kind) hidden.push({ rec, kind });
      }
      const first = hidden[0];
      if (!first) continue;
      const what =
        hidden.length === 1
          ? `${first.kind} ${first.rec.id}`
          : `${num(hidden.length)} protected items (${list(hidden.map((h) => h.rec.id))})`;
      out.push(
        finding(
          'PROTECTED_TEXT_SHORTENED',
          'error',
          `The mask at seq ${e.seq} hides ${what} behind a reference: user instructions, tool arguments and the live plan are not masking targets; only tool results are.`,
          [e.seq, ...hidden.map((h) => h.rec.seq)],
        ),
      );
    }
    return out;
  },
};
