import type { Diagnostic } from '../../model/diagnostic';
import { finding, num } from '../text';
import type { Rule } from '../types';

/**
 * Format health: records nobody understood are kept as `unknown` events and counted. Importers
 * report them (one UNKNOWN_RECORDS per type and file, or a finding of their own about the line);
 * this rule reports only the types no importer finding cites — for instance unknown events a
 * converter wrote itself — so nothing is said twice.
 */
export const UNKNOWN_RECORDS: Rule = {
  id: 'UNKNOWN_RECORDS',
  severities: ['warning'],
  title: 'Records nobody understood were kept as unknown events',
  origins: ['format'],
  run(ctx) {
    const cited = new Set<number>();
    for (const d of ctx.reported) for (const s of d.seqs) cited.add(s);
    const byType = new Map<string, number[]>();
    for (const e of ctx.facts.ofKinds('unknown')) {
      let l = byType.get(e.type);
      if (!l) byType.set(e.type, (l = []));
      l.push(e.seq);
    }
    const out: Diagnostic[] = [];
    for (const [type, seqs] of byType) {
      if (seqs.some((s) => cited.has(s))) continue; // An importer reported these records already.
      out.push(
        finding(
          'UNKNOWN_RECORDS',
          'warning',
          `${num(seqs.length)} record${seqs.length === 1 ? '' : 's'} of type "${type}" ${seqs.length === 1 ? 'was' : 'were'} kept as unknown (first at seq ${seqs[0]}): what ${seqs.length === 1 ? 'it' : 'they'} changed, if anything, is not in the model views.`,
          seqs.slice(0, 20),
        ),
      );
    }
    return out;
  },
};
