import { CATEGORIES } from '../../shared/forensics/categories';
import type { CompactionSurvival } from '../../shared/forensics/compaction';
import type { Rates } from '../../shared/forensics/survival';

/*
 * Compaction forensics as `palimpsest forensics` prints it: per compaction, the survival of each
 * anchor category and the anchors lost, each with the seq of the item it was said in.
 */

export function forensicsJson(list: readonly CompactionSurvival[]) {
  return {
    compactions: list.map((c) => ({
      id: c.id,
      survival: c.survival,
      /** The summary was (partly) encrypted: only what the compaction kept on the view was searched. */
      encrypted: c.opaque,
      lost: c.lost.map((a) => ({ category: a.category, text: a.text, seq: a.seq })),
    })),
  };
}

const pct = (r: number | null): string => (r === null ? '—' : `${Math.round(r * 100)} %`);

/** One line per category: "paths  12/40 (30 %): 10 verbatim, 2 normalised". */
export function renderRates(rates: Rates, indent = '  '): string[] {
  const w = Math.max(...CATEGORIES.map((c) => c.length));
  return CATEGORIES.map((c) => {
    const r = rates[c];
    if (r.total === 0) return `${indent}${c.padEnd(w)}  —`;
    return `${indent}${c.padEnd(w)}  ${r.verbatim + r.normalised}/${r.total} (${pct(r.rate)}): ${r.verbatim} verbatim, ${r.normalised} normalised, ${r.lost} lost`;
  });
}

// Session text is quoted: no control characters to the terminal, one line each.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

function oneLine(s: string, max = 140): string {
  const flat = s.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function renderForensics(path: string, list: readonly CompactionSurvival[], skipped: number): string {
  const lines: string[] = [path];
  if (list.length === 0) {
    lines.push(
      skipped > 0
        ? `  no compaction replaced any item (${skipped} compaction${skipped === 1 ? '' : 's'} committed nothing): nothing to measure`
        : '  no compaction in this session: nothing to measure',
    );
    return lines.join('\n');
  }
  for (const c of list) {
    lines.push(
      '',
      `compaction ${c.id} (committed at seq ${c.commitSeq}): replaced ${c.replaced} items, kept ${c.kept}, summary ${c.summaryChars} characters${c.opaque ? ' (part of it encrypted: not read, so what only it kept counts as lost)' : ''}`,
    );
    lines.push(...renderRates(c.survival));
    if (c.lost.length > 0) {
      lines.push(`  lost (${c.lost.length}):`);
      for (const a of c.lost) lines.push(`    ${a.category.padEnd(11)} seq ${String(a.seq).padEnd(7)} ${oneLine(a.text)}`);
    }
  }
  if (skipped > 0)
    lines.push(
      '',
      `${skipped} other compaction${skipped === 1 ? '' : 's'} replaced no item (failed, rejected or open): nothing to measure.`,
    );
  return lines.join('\n');
}
