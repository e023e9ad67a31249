import type { Diagnostic } from '../../model/diagnostic';
import { compactionParts } from '../../forensics/compaction';
import { constraintsIn } from '../../forensics/extract/constraints';
import { matchAnchor, Target } from '../../forensics/match';
import { finding } from '../text';
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
      for (const it of parts.replaced) {
        if (!it.prompt) continue;
        const text = it.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
        for (const s of constraintsIn(text)) {
          if (seen.has(s)) continue;
          seen.add(s);
          target ??= new Target(`${parts.summary}\n\n${parts.keptText}`);
          if (matchAnchor({ category: 'constraints', text: s, seq: it.seq }, target) !== 'lost') continue;
          out.push(
            finding(
              'CONSTRAINT_LOST',
              'warning',
              `Compaction ${c.id} replaced the prompt at seq ${it.seq}, which said "${quote(s, 160)}"; neither the summary nor the items it kept say it any more, verbatim or restated, so the agent goes on without that constraint.`,
              [c.commitSeq, it.seq],
            ),
          );
        }
      }
    }
    return out;
  },
};
