import { realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { expandCells, inShard, type Cell, type ResolvedTrace, type Shard } from '../../shared/eval/cells';
import { parseFacts, type FactsFile } from '../../shared/eval/facts';
import { parseSpec, specWarnings, type EvalSpec } from '../../shared/eval/spec';
import { strategyById } from '../../shared/strategies';
import type { FormatId } from '../importers/types';
import { dataDir } from '../files/data-dir';
import { SessionInspector } from '../session/inspector';
import { loadSession } from '../session/load';
import { expandTracePath, readStructured } from './files';
import { parseMock, type LoadedMock } from './mock';
import type { Result } from '../../shared/eval/result';

/*
 * Everything an eval run needs before its first cell: the spec validated, every trace glob expanded
 * and loaded once, targets resolved ('compactions' = every compaction of the file), facts and mock
 * scripts read, the cells expanded and cut to this shard. Every problem is collected and returned
 * as sentences naming the file; nothing runs on a spec that does not load whole.
 */

export interface PreparedTrace {
  readonly index: number;
  readonly path: string;
  readonly absPath: string;
  readonly inspector: SessionInspector;
  readonly facts: FactsFile | null;
  readonly factsFile: string | null;
  readonly mock: LoadedMock | null;
}

export interface PreparedEval {
  readonly spec: EvalSpec;
  readonly specFile: string;
  readonly traces: ReadonlyMap<string, PreparedTrace>;
  /** Every cell of the spec (all shards). */
  readonly cells: readonly Cell[];
  /** The cells of this shard. */
  readonly mine: readonly Cell[];
  readonly warnings: readonly string[];
  dispose(): Promise<void>;
}

export type Prepared = Result<PreparedEval>;

const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'eval';

/** Default results file: under the data directory, by spec name and the spec file's real path. */
export async function defaultResultsFile(
  specFile: string,
  spec: EvalSpec,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string> {
  const real = await realpath(specFile);
  return join(dataDir(env), 'evals', `${slug(spec.name)}.${createHash('sha256').update(real).digest('hex').slice(0, 12)}.results.jsonl`);
}

export async function prepareEval(specFile: string, shard: Shard | null): Promise<Prepared> {
  const raw = await readStructured(specFile);
  if (!raw.ok) return raw;
  const parsed = parseSpec(raw.value, specFile);
  if (!parsed.ok) return parsed;
  const spec = parsed.value;
  const dir = dirname(specFile);
  const problems: string[] = [];
  const traces = new Map<string, PreparedTrace>();
  const resolved: ResolvedTrace[] = [];
  const dispose = async (): Promise<void> => {
    for (const t of traces.values()) await t.inspector.session.dispose();
  };
  for (const [i, t] of spec.traces.entries()) {
    const files = await expandTracePath(dir, t.path);
    if (files.length === 0) problems.push(`${specFile}: traces[${i}].path "${t.path}" matches no file`);
    let facts: FactsFile | null = null;
    if (t.facts) {
      const f = await readStructured(resolve(dir, t.facts));
      const p = f.ok ? parseFacts(f.value, resolve(dir, t.facts)) : f;
      if (p.ok) facts = p.value;
      else problems.push(p.error);
    }
    const config = t.mock ?? spec.mock;
    let mock: LoadedMock | null = null;
    if (config) {
      const s =
        typeof config.script === 'string' ? await readStructured(resolve(dir, config.script)) : { ok: true as const, value: config.script };
      const m = s.ok ? parseMock(config, s.value) : s;
      if (m.ok) mock = m.value;
      else problems.push(`${specFile}: traces[${i}].mock: ${m.error}`);
    } else mock = { script: null, extractive: {} }; // no mock config: the extractive answer for every mock model
    for (const file of files) {
      if (traces.has(file)) continue;
      try {
        const session = await loadSession(resolve(dir, file), { format: t.format as FormatId | undefined });
        const inspector = new SessionInspector(session);
        if (t.branch !== undefined && !inspector.hasBranch(t.branch)) {
          problems.push(`${file}: no branch "${t.branch}"`);
          await session.dispose();
          continue;
        }
        await inspector.loadRuleTexts(t.branch);
        traces.set(file, { index: i, path: file, absPath: resolve(dir, file), inspector, facts, factsFile: t.facts ?? null, mock });
        const targets = t.targets === 'compactions' ? inspector.replay(t.branch).compactions.map((c) => ({ compaction: c.id })) : t.targets;
        if (targets.length === 0) problems.push(`${file}: no compaction to re-run (give targets: [{request: N}] to re-run on requests)`);
        resolved.push({ trace: i, path: file, targets });
      } catch (err) {
        problems.push(`${file}: ${(err as Error).message}`);
      }
    }
  }
  const cells = problems.length === 0 ? expandCells(spec, resolved, (id) => strategyById(id) ?? undefined) : null;
  if (cells && !cells.ok) problems.push(cells.error);
  if (problems.length > 0 || !cells?.ok) {
    await dispose();
    return { ok: false, error: problems.join('\n') };
  }
  return {
    ok: true,
    value: {
      spec,
      specFile,
      traces,
      cells: cells.value,
      mine: cells.value.filter((c) => inShard(c.key, shard)),
      warnings: specWarnings(spec),
      dispose,
    },
  };
}
