import { appendLine } from '../files/append-line';
import { readRegularFile } from '../files/open-regular';
import { parseEvalLine, type EvalLine } from '../../shared/eval/results';

/* The eval results file: JSONL, one line per finished cell, appended, never rewritten. */

export interface ResultsRead {
  readonly lines: EvalLine[];
  /** Lines that are not eval lines (reported with their number, skipped). */
  readonly problems: string[];
  readonly exists: boolean;
}

export async function readResults(file: string, spec?: string): Promise<ResultsRead> {
  let text: string;
  try {
    text = await readRegularFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], problems: [], exists: false };
    return { lines: [], problems: [`${file}: cannot read (${(err as Error).message})`], exists: true };
  }
  const lines: EvalLine[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      problems.push(`${file}:${i + 1}: not JSON (a line cut short by an interrupted run?); skipped`);
      return;
    }
    const r = parseEvalLine(json, `${file}:${i + 1}`);
    if (!r.ok) problems.push(`${r.error}; skipped`);
    else if (spec === undefined || r.value.spec === spec) lines.push(r.value);
  });
  return { lines, problems, exists: true };
}

export async function appendResult(file: string, line: EvalLine): Promise<void> {
  await appendLine(file, JSON.stringify(line));
}
