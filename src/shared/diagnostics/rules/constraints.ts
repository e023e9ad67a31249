import type { Diagnostic } from '../../model/diagnostic';
import { compactionParts } from '../../forensics/compaction';
import { constraintsIn } from '../../forensics/extract/constraints';
import { matchAnchor, Target } from '../../forensics/match';
import { finding, num, plural } from '../text';
import type { Rule } from '../types';
import { quote } from './inferred';

/**
 * A constraint the user stated ("never …", "don't …", "only …") in a prompt a compaction replaced,
 * which neither its summary nor what it kept on the view carries any more, verbatim or restated
 * (compaction forensics, src/shared/forensics). The agent goes on without a rule it was given.
 * Silent where the summary cannot be read (an encrypted compaction item).
 */
export const CONSTRAINT_LOST: Rule = {
  id: 'CONSTRAINT_LOST',
  severities: ['warning'],
  title: "A user's constraint was lost by both the summary and the kept tail",
  origins: ['users'],
  run(ctx) {
    const out: Diagnostic[] = [];
    for (const c of ctx.facts.compactions) {
      const parts = compactionParts(ctx.facts, c);
      if (!parts || parts.opaque || c.commitSeq === null) continue;
      let target: Target | null = null;
      const seen = new Set<string>();
      const lost: { text: string; seq: number }[] = [];
      for (const it of parts.replaced) {
        if (!it.prompt) continue;
        const text = it.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
        for (const s of constraintsIn(text)) {
          if (seen.has(s)) continue;
          seen.add(s);
          target ??= new Target(`${parts.summary}\n\n${parts.keptText}`);
          if (matchAnchor({ category: 'constraints', text: s, seq: it.seq }, target) === 'lost') lost.push({ text: s, seq: it.seq });
        }
      }
      if (lost.length === 0) continue;
      out.push(finding('CONSTRAINT_LOST', 'warning', message(c.id, lost), [c.commitSeq, ...lost.map((l) => l.seq)]));
    }
    return out;
  },
};

/**
 * One finding per compaction, however many constraints it lost: a pasted rule book can hold dozens,
 * and a finding each buried the panel (22 from one compaction of a real session).
 */
function message(compaction: string, lost: readonly { text: string; seq: number }[]): string {
  const [one] = lost;
  if (lost.length === 1 && one !== undefined)
    return `Compaction ${compaction} replaced the prompt at seq ${one.seq}, which said "${quote(one.text, 160)}"; neither the summary nor the items it kept say it any more, verbatim or restated, so the agent goes on without that constraint.`;
  const shown = lost.slice(0, SHOWN).map((l) => `"${quote(l.text, 120)}" (seq ${l.seq})`);
  const more = lost.length - shown.length;
  return `Compaction ${compaction} replaced prompts holding ${plural(lost.length, 'constraint')} that neither the summary nor the items it kept say any more, verbatim or restated: ${shown.join(', ')}${more > 0 ? ` and ${num(more)} more` : ''}; the agent goes on without them.`;
}

const SHOWN = 3;
