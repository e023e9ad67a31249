import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { aggregate, type Aggregate, type ScoredRun } from '../../../../src/shared/eval/aggregate';
import { expandCells, type ResolvedTrace } from '../../../../src/shared/eval/cells';
import { parseFacts, type Fact, type FactsFile } from '../../../../src/shared/eval/facts';
import { cellRef } from '../../../../src/shared/eval/results';
import { scoreRun } from '../../../../src/shared/eval/score';
import { parseSpec, type EvalSpec } from '../../../../src/shared/eval/spec';
import { charCounter } from '../../../shared/strategies/common/char-counter';
import { strategyById } from '../../../../src/shared/strategies';
import type { Summarizer, SummaryCall, SummaryRequest } from '../../../../src/shared/strategies/types';
import { costBreakdown } from '../../../../src/shared/rerun/cost';
import { extractiveSummary } from '../../../../src/main/mock/extractive';
import { Script, type RequestDigest } from '../../../../src/main/mock/script';
import { resolveSource } from '../../../../src/main/rerun/source';
import { runRerun } from '../../../../src/main/rerun/run';
import { SessionInspector } from '../../../../src/main/session/inspector';
import { loadSession } from '../../../../src/main/session/load';
import type { FormatId } from '../../../../src/main/importers/types';

/*
 * A minimal stand-in for the eval runner, for tests only: it runs a spec's clean cells in process,
 * answering mock models from the spec's mock script (or the mock's extractive answerer) without a
 * server, and skips fault cells (they need the mock provider on the wire). The real runner lives in
 * src/main/eval; this exists so the shared eval layer and the reports are tested on real traces.
 */

export interface PipelineResult {
  readonly spec: EvalSpec;
  readonly runs: readonly ScoredRun[];
  readonly aggregate: Aggregate;
  readonly facts: ReadonlyMap<string, FactsFile>;
}

function digestOf(req: SummaryRequest, model: string): RequestDigest {
  const text = req.messages.map((m) => m.text).join('\n');
  const users = req.messages.filter((m) => m.role === 'user');
  return {
    protocol: 'in-process',
    model,
    stream: true,
    system: req.system ?? '',
    text,
    firstUser: users[0]?.text ?? '',
    lastUser: users[users.length - 1]?.text ?? '',
    hasTools: false,
    maxOutput: req.maxOutput,
    raw: '',
  };
}

/** Answers like the mock would: the first script step whose `when.model` is part of the model name, else extractively. */
function inProcessMock(scriptPath: string | null, model: string, window: number | null): Summarizer {
  const script = scriptPath ? Script.parse(JSON.parse(readFileSync(scriptPath, 'utf8'))) : { steps: [] };
  return {
    window,
    defaultMaxOutput: null,
    async summarize(request) {
      const step = script.steps.find((s) => s.reply && (s.when?.model === undefined || model.includes(s.when.model)));
      const reply = step?.reply ?? extractiveSummary(digestOf(request, model));
      const text = reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      const natural = reply.stop === undefined || reply.stop === 'end';
      return {
        request,
        model: `mock:${model}`,
        text: natural && text.trim() !== '' ? text : null,
        finish: { raw: reply.stop ?? 'end', reason: natural ? 'stop' : 'length' },
        // As the mock reports it: as scripted, else about a quarter of the request and of the reply.
        usage: {
          input:
            reply.usage?.input ?? Math.ceil(((request.system ?? '').length + request.messages.reduce((n, m) => n + m.text.length, 0)) / 4),
          output: reply.usage?.output ?? Math.max(1, Math.ceil(text.length / 4)),
        },
        latencyMs: 1,
        attempts: 1,
        error: null,
      };
    },
  };
}

export async function runSpec(specPath: string): Promise<PipelineResult> {
  const parsed = parseSpec(YAML.parse(readFileSync(specPath, 'utf8')), specPath);
  if (!parsed.ok) throw new Error(parsed.error);
  const spec = parsed.value;
  const dir = dirname(specPath);
  const inspectors = new Map<string, SessionInspector>();
  const facts = new Map<string, FactsFile>();
  const resolved: ResolvedTrace[] = [];
  for (const [i, t] of spec.traces.entries()) {
    const session = await loadSession(join(dir, t.path), { format: t.format as FormatId | undefined });
    const ins = new SessionInspector(session);
    inspectors.set(t.path, ins);
    const targets = t.targets === 'compactions' ? ins.replay(t.branch).compactions.map((c) => ({ compaction: c.id })) : t.targets;
    resolved.push({ trace: i, path: t.path, targets });
    if (t.facts) {
      const f = parseFacts(YAML.parse(readFileSync(join(dir, t.facts), 'utf8')), t.facts);
      if (!f.ok) throw new Error(f.error);
      facts.set(t.path, f.value);
    }
  }
  const cells = expandCells(spec, resolved, (id) => strategyById(id) ?? undefined);
  if (!cells.ok) throw new Error(cells.error);
  const runs: ScoredRun[] = [];
  try {
    for (const cell of cells.value) {
      if (cell.fault) continue;
      const t = cell.trace.spec;
      const ins = inspectors.get(t.path) as SessionInspector;
      const source = await resolveSource(ins, cell.target, t.branch);
      if (!source.ok) throw new Error(source.error);
      const strategy = strategyById(cell.strategy.id);
      if (!strategy) throw new Error(`no strategy ${cell.strategy.id}`);
      const window = t.budget?.window ?? source.source.view.route?.window ?? 128_000;
      const mock = t.mock ?? spec.mock;
      const pinned = cell.model.pinned;
      const summarizer = pinned
        ? {
            summarizer: inProcessMock(typeof mock?.script === 'string' ? join(dir, mock.script) : null, pinned.model, pinned.window),
            ledger: { sentFor: () => [], costFor: (c: SummaryCall) => costBreakdown(c.usage, pinned.prices)?.total ?? null },
            models: [{ ...pinned }],
            mock: true,
          }
        : null;
      const [run] = await runRerun({
        source: source.source,
        identity: { path: t.path, size: 0, fingerprint: 'test' },
        branch: t.branch ?? ins.defaultBranch,
        target: cell.target,
        strategy,
        options: cell.strategy.options,
        budget: { window, maxOutput: t.budget?.maxOutput ?? null },
        count: charCounter,
        counterName: 'chars/4',
        summarizer,
        repeat: 1,
        signal: new AbortController().signal,
      });
      if (!run) throw new Error('no run');
      const items = source.source.view.items.map((it) => ({ id: it.id, seq: it.seq }));
      const factList: readonly Fact[] = facts.get(t.path)?.facts ?? [];
      runs.push({ cell: cellRef(cell), run, score: scoreRun(run, factList, { items }) });
    }
  } finally {
    for (const ins of inspectors.values()) await ins.session.dispose();
  }
  return { spec, runs, aggregate: aggregate(runs), facts };
}
