import { z } from 'zod';
import { modelLabel, PinnedModel, ProviderId } from '../rerun/pinned';
import { RunTarget } from '../rerun/record';
import { RECALL_CATEGORIES } from './facts';
import { fail, issuesText, ok, type Result } from './result';

/*
 * The eval spec (docs/eval.md, "Spec"): which traces, which targets in them, which facts, which
 * strategies with which models, how many repeats, and what must hold for the run to pass. The file
 * is YAML or JSON; main reads and parses the text, this module validates the value. Paths are
 * relative to the spec file and are resolved by main. Cells are expanded in cells.ts.
 */

export const NONE_MODEL = 'none';

/** A model of the matrix: a pinned model with the label it is shown and keyed by, or 'none'. */
export type SpecModel = { readonly label: 'none'; readonly pinned: null } | { readonly label: string; readonly pinned: PinnedModel };

/** "provider:model" (the first colon splits: "openai:llama3.1:8b" keeps its tag) into a pinned model with defaults. */
function modelFromString(text: string, ctx: z.RefinementCtx): SpecModel | null {
  if (text === NONE_MODEL) return { label: NONE_MODEL, pinned: null };
  const colon = text.indexOf(':');
  const provider = ProviderId.safeParse(colon < 0 ? text : text.slice(0, colon));
  const r = PinnedModel.safeParse({ provider: provider.data, model: text.slice(colon + 1) });
  if (colon < 0 || !provider.success || text.slice(colon + 1).trim() === '' || !r.success) {
    ctx.addIssue({
      code: 'custom',
      message: `"${text}" is not "none" or PROVIDER:MODEL with a provider from ${ProviderId.options.join(', ')}`,
    });
    return null;
  }
  return { label: modelLabel(r.data), pinned: r.data };
}

/** A pinned model object, with an optional `label` beside its fields. */
function modelFromObject(obj: Record<string, unknown>, ctx: z.RefinementCtx): SpecModel | null {
  const { label, ...rest } = obj;
  if (label !== undefined && (typeof label !== 'string' || label === '' || label === NONE_MODEL)) {
    ctx.addIssue({ code: 'custom', message: 'label must be a non-empty text other than "none"', path: ['label'] });
    return null;
  }
  const r = PinnedModel.safeParse(rest);
  if (!r.success) {
    for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path });
    return null;
  }
  return { label: typeof label === 'string' ? label : modelLabel(r.data), pinned: r.data };
}

/** "none", "provider:model", or a PinnedModel object (+ label). One branch per shape, so errors say what is wrong. */
const ModelEntry = z.unknown().transform((v, ctx): SpecModel => {
  if (typeof v === 'string') return modelFromString(v, ctx) ?? z.NEVER;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return modelFromObject(v as Record<string, unknown>, ctx) ?? z.NEVER;
  ctx.addIssue({ code: 'custom', message: 'a model is "none", "PROVIDER:MODEL", or a pinned model object' });
  return z.NEVER;
});

const ratio = z.number().min(0).max(1);
const TraceBudget = z.strictObject({ window: z.number().int().positive(), maxOutput: z.number().int().positive().nullable().optional() });
/**
 * What the mock provider answers (main validates both against src/main/mock):
 * - script: a Script (steps + fallback), inline or as a path to a JSON file relative to the spec;
 * - extractive: the mock's extractive answerer (src/main/mock/extractive.ts; true, or its options)
 *   for requests no script step takes. Default: on when there is no script.
 */
const MockConfig = z
  .strictObject({
    script: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    extractive: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
  })
  .refine((m) => m.script !== undefined || m.extractive !== undefined, 'give a script, extractive, or both');
export type MockConfig = z.infer<typeof MockConfig>;

export const SpecTrace = z.strictObject({
  /** A file or a glob, relative to the spec file. A glob's matches are taken in sorted order. */
  path: z.string().min(1),
  /** Importer format id (claude-code, codex, dsh, rind, cosh, palimpsest); absent: detected. */
  format: z.string().min(1).optional(),
  branch: z.string().min(1).optional(),
  /** 'compactions': every compaction of the trace (the default); or a list of targets. */
  targets: z.union([z.literal('compactions'), z.array(RunTarget).min(1)]).default('compactions'),
  /** The facts file, relative to the spec file. Without one, only structural checks and cost are reported. */
  facts: z.string().min(1).optional(),
  /** The agent budget to re-run with; absent: the trace's own route window. */
  budget: TraceBudget.optional(),
  /** What the mock provider answers for this trace's cells (replaces the spec-level mock). */
  mock: MockConfig.optional(),
});
export type SpecTrace = z.infer<typeof SpecTrace>;

export const SpecStrategy = z.strictObject({
  id: z.string().min(1),
  options: z.record(z.string(), z.unknown()).default({}),
  /** How the strategy is shown and keyed; default: its id. Two entries with the same id need labels. */
  label: z.string().min(1).optional(),
});

export const Limits = z.strictObject({
  requests: z.number().int().positive().optional(),
  /** Provider tokens: input + output + cache reads + cache writes, as reported. */
  tokens: z.number().int().positive().optional(),
  costUsd: z.number().positive().optional(),
});
export type Limits = z.infer<typeof Limits>;

export const Thresholds = z.strictObject({
  /** Which matrix cells the thresholds apply to (strategy and model labels); absent: all. */
  appliesTo: z
    .strictObject({ strategies: z.array(z.string()).min(1).optional(), models: z.array(z.string()).min(1).optional() })
    .optional(),
  minRecall: ratio.optional(),
  minRecallByCategory: z
    .strictObject(
      Object.fromEntries(RECALL_CATEGORIES.map((c) => [c, ratio.optional()])) as Record<
        (typeof RECALL_CATEGORIES)[number],
        z.ZodOptional<typeof ratio>
      >,
    )
    .optional(),
  minStaleRejection: ratio.optional(),
  minProvenance: ratio.optional(),
  /** The most error-severity diagnostics any one run of a cell may have. */
  maxStructuralErrors: z.number().int().nonnegative().optional(),
  maxFailureRate: ratio.optional(),
  /** The least share of runs under injected faults that must still commit. */
  minRecovery: ratio.optional(),
});
export type Thresholds = z.infer<typeof Thresholds>;

export const FaultScenario = z.strictObject({
  name: z
    .string()
    .min(1)
    .regex(/^[\w.-]+$/, 'letters, digits, _ . - only (it is part of cell keys)'),
  description: z.string().optional(),
  /** Mock script steps (src/main/mock/script.ts Step), put before the trace's script; validated by main. */
  steps: z.array(z.record(z.string(), z.unknown())).min(1),
  /** Only for these model labels (each must be a mock model); absent: every mock model. */
  models: z.array(z.string().min(1)).min(1).optional(),
});
export type FaultScenario = z.infer<typeof FaultScenario>;

export const EvalSpec = z
  .strictObject({
    name: z.string().min(1),
    description: z.string().optional(),
    traces: z.array(SpecTrace).min(1),
    strategies: z.array(SpecStrategy).min(1),
    models: z.array(ModelEntry).min(1).prefault([NONE_MODEL]),
    repeats: z.number().int().min(1).max(100).default(1),
    concurrency: z.number().int().min(1).max(64).default(1),
    /** Passed to the mock and to providers that accept a seed; it does not make a live model deterministic. */
    seed: z.number().int().nonnegative().default(0),
    limits: Limits.default({}),
    thresholds: Thresholds.default({}),
    faults: z.array(FaultScenario).default([]),
    /** An LLM judge: a separate column, never merged into the deterministic scores, never ground truth. */
    judge: z.strictObject({ model: ModelEntry, instructions: z.string().optional() }).optional(),
    /** What the mock provider answers, for traces without their own `mock`. */
    mock: MockConfig.optional(),
  })
  .superRefine((spec, ctx) => {
    const labels = new Map<string, number>();
    spec.strategies.forEach((s, i) => {
      const label = s.label ?? s.id;
      const first = labels.get(label);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['strategies', i, 'label'],
          message: `strategies[${first}] is also labelled "${label}"; give each entry its own label`,
        });
      else labels.set(label, i);
    });
    const models = new Map<string, number>();
    spec.models.forEach((m, i) => {
      const first = models.get(m.label);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['models', i],
          message: `models[${first}] is also labelled "${m.label}"; give one of them a label`,
        });
      else models.set(m.label, i);
    });
    if (spec.judge && spec.judge.model.pinned === null)
      ctx.addIssue({ code: 'custom', path: ['judge', 'model'], message: 'the judge needs a model, not "none"' });
    const faults = new Set<string>();
    spec.faults.forEach((f, i) => {
      if (faults.has(f.name))
        ctx.addIssue({ code: 'custom', path: ['faults', i, 'name'], message: `two fault scenarios are named "${f.name}"` });
      faults.add(f.name);
      (f.models ?? []).forEach((label, j) => {
        const m = spec.models.find((x) => x.label === label);
        if (m?.pinned?.provider !== 'mock')
          ctx.addIssue({
            code: 'custom',
            path: ['faults', i, 'models', j],
            message: `"${label}" is not a mock model of this spec: faults are injected through the mock provider`,
          });
      });
    });
  });
export type EvalSpec = z.infer<typeof EvalSpec>;

/** Validates a parsed spec (YAML or JSON; reading and parsing the text is main's job). */
export function parseSpec(value: unknown, file: string): Result<EvalSpec> {
  const r = EvalSpec.safeParse(value);
  return r.success ? ok(r.data) : fail(issuesText(file, r.error));
}

export const strategyLabel = (s: EvalSpec['strategies'][number]): string => s.label ?? s.id;

/**
 * Things that are valid but probably not what the author meant; the runner prints them before it
 * starts. Unknown strategy ids are checked by expandCells, which has the strategy registry.
 */
export function specWarnings(spec: EvalSpec): string[] {
  const out: string[] = [];
  const mocks = spec.models.filter((m) => m.pinned?.provider === 'mock');
  if (spec.faults.length > 0 && mocks.length === 0)
    out.push('faults are injected through the mock provider, and no model of the spec is a mock: the fault scenarios will not run');
  if (spec.limits.costUsd !== undefined) {
    const unpriced = spec.models
      .filter((m) => m.pinned !== null && m.pinned.provider !== 'mock' && m.pinned.prices === undefined)
      .map((m) => m.label);
    if (unpriced.length > 0)
      out.push(
        `limits.costUsd cannot be enforced for ${unpriced.join(', ')}: no prices are pinned, so their cost is unknown (requests and tokens limits still apply)`,
      );
  }
  const strategies = new Set(spec.strategies.map(strategyLabel));
  const models = new Set(spec.models.map((m) => m.label));
  for (const s of spec.thresholds.appliesTo?.strategies ?? [])
    if (!strategies.has(s)) out.push(`thresholds.appliesTo names strategy "${s}", which the spec does not run`);
  for (const m of spec.thresholds.appliesTo?.models ?? [])
    if (!models.has(m)) out.push(`thresholds.appliesTo names model "${m}", which the spec does not list`);
  if (spec.traces.some((t) => t.facts === undefined))
    out.push('some traces have no facts file: their cells get structural checks and cost, no quality scores');
  return out;
}
