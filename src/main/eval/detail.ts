import type { EvalRunRow } from '../../shared/api/eval-contract';
import type { Comparison as ComparisonRow } from '../../shared/api/rerun-contract';
import { compare, type Comparison } from '../../shared/compare/compare';
import type { Diagnostic } from '../../shared/model/diagnostic';
import type { EvalLine } from '../../shared/eval/results';
import type { FormatId } from '../importers/types';
import { originalSubject, runSubject } from '../rerun/original';
import { sourceIdentity } from '../rerun/sidecar';
import { resolveSource } from '../rerun/source';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { runRowOf } from './open';
import { readResults } from './results-file';
import type { SpecInfo } from './spec-info';

/*
 * One run of a results file beside the compaction it re-ran: the compare view's comparison
 * (src/shared/compare/compare.ts, as compareRuns builds it in src/main/api/handlers-rerun.ts), the
 * original first when the target is a compaction, then this run; plus the run's score. The trace is
 * the file the run recorded (its real path); loaded traces are kept for the next drill, two at most.
 */

export type DetailResult =
  | { readonly ok: true; readonly value: RunDetail }
  | { readonly ok: false; readonly code: 'BAD_INPUT' | 'UNREADABLE'; readonly message: string };

export interface RunDetail {
  readonly file: string;
  readonly branch: string;
  readonly comparison: ComparisonRow;
  readonly stale: string[];
  readonly missing: string[];
  readonly note: string | null;
  readonly run: EvalRunRow;
  readonly facts: EvalLine['score']['facts'];
  readonly provenance: EvalLine['score']['provenanceOf'];
  readonly diagnostics: readonly Diagnostic[];
  readonly tracePath: string;
}

/** Each subject's view text is counted, not sent: it can be a whole session. */
function comparisonRow(c: Comparison): ComparisonRow {
  return {
    anchors: {
      paths: [...c.anchors.paths],
      commands: [...c.anchors.commands],
      identifiers: [...c.anchors.identifiers],
      urls: [...c.anchors.urls],
      errors: [...c.anchors.errors],
      numbers: [...c.anchors.numbers],
      constraints: [...c.anchors.constraints],
      tasks: [...c.anchors.tasks],
      decisions: [...c.anchors.decisions],
    },
    rows: c.rows.map((r) => {
      const { viewText, ...subject } = r.subject;
      return {
        subject: { ...subject, diagnostics: [...subject.diagnostics], viewChars: viewText === null ? null : viewText.length },
        sections: r.sections.map((s) => ({ ...s })),
        survival: r.survival.map((s) => ({ ...s, lost: [...s.lost] })),
        recall: r.recall,
        severities: { ...r.severities },
        diff: r.diff === null ? null : r.diff.map((d) => ({ ...d })),
      };
    }),
  };
}

const KEEP_TRACES = 2;

/** Traces loaded for drills, newest last; an evicted one is disposed. */
export class TraceCache {
  private readonly loaded = new Map<string, Promise<SessionInspector>>();

  get(path: string, fingerprint: string, format: string | undefined): Promise<SessionInspector> {
    const key = `${fingerprint}\u0000${path}`;
    const hit = this.loaded.get(key);
    if (hit) {
      this.loaded.delete(key);
      this.loaded.set(key, hit);
      return hit;
    }
    const loading = (async () => {
      const inspector = new SessionInspector(await loadSession(path, { format: format as FormatId | undefined }));
      await inspector.loadRuleTexts();
      return inspector;
    })();
    // A load that fails is not kept: the next drill tries again.
    loading.catch(() => this.loaded.delete(key));
    this.loaded.set(key, loading);
    for (const [k, p] of this.loaded) {
      if (this.loaded.size <= KEEP_TRACES) break;
      this.loaded.delete(k);
      void p.then(
        (i) => i.session.dispose(),
        () => undefined,
      );
    }
    return loading;
  }

  dispose(): void {
    for (const p of this.loaded.values())
      void p.then(
        (i) => i.session.dispose(),
        () => undefined,
      );
    this.loaded.clear();
  }
}

/** `specOf`: the spec of a spec name, for the importer it names for the trace (null: detect the format). */
export async function runDetail(
  file: string,
  ref: { readonly runId?: string; readonly key?: string },
  specOf: (name: string) => Promise<SpecInfo | null>,
  traces: TraceCache,
): Promise<DetailResult> {
  const { lines, exists } = await readResults(file);
  if (!exists) return { ok: false, code: 'UNREADABLE', message: `${file}: no such results file.` };
  const line = ref.runId !== undefined ? lines.find((l) => l.run.runId === ref.runId) : lines.findLast((l) => l.cell.key === ref.key);
  if (!line) return { ok: false, code: 'BAD_INPUT', message: `No run ${ref.runId ?? ref.key ?? '?'} in ${file}.` };
  const run = line.run;
  const tracePath = run.source.path;
  let identity;
  try {
    identity = await sourceIdentity(tracePath);
  } catch (err: unknown) {
    return {
      ok: false,
      code: 'UNREADABLE',
      message: `The trace this run was made from, ${tracePath}, cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}).`,
    };
  }
  const spec = await specOf(line.spec);
  let inspector: SessionInspector;
  try {
    inspector = await traces.get(
      tracePath,
      identity.fingerprint,
      spec?.spec.name === line.spec ? spec.formats.get(line.cell.trace) : undefined,
    );
  } catch (err: unknown) {
    return { ok: false, code: 'UNREADABLE', message: `${tracePath}: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!inspector.hasBranch(run.branch))
    return { ok: false, code: 'BAD_INPUT', message: `${tracePath} has no branch "${run.branch}" any more.` };
  const src = await resolveSource(inspector, run.target, run.branch);
  if (!src.ok) return { ok: false, code: 'BAD_INPUT', message: `${tracePath}: ${src.error}` };
  const subjects = [];
  if ('compaction' in run.target) {
    const o = await originalSubject(inspector, run.target.compaction, run.branch);
    if (o) subjects.push(o);
  }
  subjects.push(runSubject(run));
  const stale = identity.fingerprint !== run.source.fingerprint;
  const note = subjects.length < 2 ? 'The target is a request, not a logged compaction: there is no original to compare with.' : null;
  return {
    ok: true,
    value: {
      file,
      branch: run.branch,
      comparison: comparisonRow(compare(src.source.view.items, subjects)),
      stale: stale ? [run.runId] : [],
      missing: [],
      note,
      run: runRowOf(line),
      facts: line.score.facts,
      provenance: line.score.provenanceOf,
      diagnostics: run.diagnostics,
      tracePath,
    },
  };
}
