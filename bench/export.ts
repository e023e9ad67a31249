import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSession } from '../src/main/api/export/export';
import { FileSink } from '../src/main/api/export/sink';
import { SessionInspector } from '../src/main/session/inspector';
import { loadSession } from '../src/main/session/load';
import { Redactor } from '../src/shared/redact/redactor';
import { median } from './stats';

/*
 * `palimpsest export --html` of the largest committed real session, for `npm run bench -- --only
 * export`: what the command does in process (load, rule texts, the HTML written piece by piece to a
 * file), without redaction, with `--redact` (the built-in rules), and with `--redact` and one own
 * pattern (`--redact-pattern`, run on overlapping windows), beside a baseline in the same process
 * and the same rounds, alternated: reading the file and JSON.parse of every line.
 */

const SESSION = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
/** A pattern a user might add: an internal ticket id. */
const OWN = 'PROJ-[0-9]{3,8}';

type Variant = 'plain' | 'redact' | 'redact+own';
const VARIANTS: readonly Variant[] = ['plain', 'redact', 'redact+own'];

export interface ExportBenchResult {
  readonly session: string;
  readonly bytes: number;
  readonly baselineMs: number[];
  readonly ms: Record<Variant, number[]>;
  readonly ratio: Record<Variant, number>;
  readonly outBytes: Record<Variant, number>;
  readonly redactions: Record<Variant, number>;
}

function baseline(path: string): number {
  const t = performance.now();
  const text = readFileSync(path, 'utf8');
  let n = 0;
  for (const line of text.split('\n')) if (line.trim() !== '') n += JSON.parse(line) ? 1 : 0;
  if (n === 0) throw new Error(`bench: ${path} has no lines`);
  return performance.now() - t;
}

async function exported(path: string, out: string, variant: Variant): Promise<{ ms: number; bytes: number; redactions: number }> {
  const t = performance.now();
  const red = new Redactor({ builtIn: variant !== 'plain', patterns: variant === 'redact+own' ? [OWN] : [] });
  const session = await loadSession(path);
  try {
    const inspector = new SessionInspector(session);
    await inspector.loadRuleTexts();
    const sink = new FileSink(out);
    const s = await exportSession(inspector, path, { kind: 'html' }, sink, red);
    await sink.close();
    const ms = performance.now() - t;
    return { ms, bytes: statSync(out).size, redactions: s.redactions };
  } finally {
    await session.dispose();
  }
}

export async function benchExport(runs: number): Promise<ExportBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'palimpsest-bench-export-'));
  try {
    const baselineMs: number[] = [];
    const ms: Record<Variant, number[]> = { plain: [], redact: [], 'redact+own': [] };
    const outBytes: Record<Variant, number> = { plain: 0, redact: 0, 'redact+own': 0 };
    const redactions: Record<Variant, number> = { plain: 0, redact: 0, 'redact+own': 0 };
    // One round unmeasured first: the first load of a process pays for compiling the importers.
    for (const v of VARIANTS) await exported(SESSION, join(dir, `warm-${v}.html`), v);
    for (let r = 0; r < runs; r++) {
      baselineMs.push(baseline(SESSION));
      for (const v of VARIANTS) {
        const e = await exported(SESSION, join(dir, `${v}-${r}.html`), v);
        ms[v].push(e.ms);
        outBytes[v] = e.bytes;
        redactions[v] = e.redactions;
      }
    }
    const base = median(baselineMs);
    const ratio = Object.fromEntries(VARIANTS.map((v) => [v, median(ms[v]) / base])) as Record<Variant, number>;
    const bytes = statSync(SESSION).size;
    console.log(`  ${SESSION} (${(bytes / 1e6).toFixed(2)} MB): read + JSON.parse of every line ${base.toFixed(0)} ms`);
    for (const v of VARIANTS)
      console.log(
        `  export --html${v === 'plain' ? '' : v === 'redact' ? ' --redact' : ` --redact --redact-pattern '${OWN}'`}: ${median(ms[v]).toFixed(0)} ms (${ratio[v].toFixed(1)}×), ${(outBytes[v] / 1e6).toFixed(2)} MB written, ${redactions[v]} redactions`,
      );
    return { session: SESSION, bytes, baselineMs, ms, ratio, outBytes, redactions };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
