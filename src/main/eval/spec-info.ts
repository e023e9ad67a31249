import { dirname, resolve } from 'node:path';
import type { EvalFact } from '../../shared/api/eval-contract';
import { parseFacts } from '../../shared/eval/facts';
import { parseSpec, type EvalSpec } from '../../shared/eval/spec';
import { expandTracePath, readStructured } from './files';
import type { Result } from '../../shared/eval/result';

/*
 * What the app needs of a spec without running it: its name and thresholds, the format of each
 * trace file (for loading a trace back), and its confirmed facts in words, keyed by trace path as
 * results lines record it (relative to the spec). Unlike prepareEval (./prepare.ts) it loads no
 * trace: opening a results file must stay fast.
 */

export interface SpecInfo {
  readonly file: string;
  readonly spec: EvalSpec;
  readonly facts: readonly EvalFact[];
  /** Trace path (as in results lines) → the importer the spec names for it. */
  readonly formats: ReadonlyMap<string, string>;
  /** Facts files that could not be read, a sentence each. */
  readonly problems: readonly string[];
}

export type SpecRead = Result<SpecInfo>;

/** The spec alone (name, thresholds): no facts or globs read. */
export async function readSpec(file: string): Promise<Result<EvalSpec>> {
  const raw = await readStructured(file);
  return raw.ok ? parseSpec(raw.value, file) : raw;
}

export async function readSpecInfo(file: string): Promise<SpecRead> {
  const parsed = await readSpec(file);
  if (!parsed.ok) return parsed;
  const spec = parsed.value;
  const dir = dirname(file);
  const facts: EvalFact[] = [];
  const formats = new Map<string, string>();
  const problems: string[] = [];
  for (const t of spec.traces) {
    const paths = await expandTracePath(dir, t.path);
    for (const p of paths) if (t.format !== undefined && !formats.has(p)) formats.set(p, t.format);
    if (!t.facts) continue;
    const factsFile = resolve(dir, t.facts);
    const raw = await readStructured(factsFile);
    const f = raw.ok ? parseFacts(raw.value, factsFile) : raw;
    if (!f.ok) {
      problems.push(f.error);
      continue;
    }
    for (const p of paths) {
      for (const x of f.value.facts) if (x.confirmed) facts.push({ trace: p, id: x.id, category: x.category, text: x.text });
    }
  }
  return { ok: true, value: { file, spec, facts, formats, problems } };
}
