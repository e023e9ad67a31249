/**
 * The options each strategy documents (docs/rerun.md; their schemas are in
 * src/shared/strategies/*), as typed fields of the re-run panel, and the translation of what the
 * user typed into the `options` of startRerun. Validation here catches typos before a job starts;
 * the strategies stay the authority: they reject unknown keys and bad values themselves, and the
 * run's error says so (the "Other options" lines reach them unchecked, as `--option` does).
 *
 * The defaults are repeated here rather than imported: importing a strategy module would pull its
 * code into the renderer. test/renderer/rerun/options.test.ts checks them against the strategies'
 * constants.
 */

import type { Result } from '../../shared/result';
import { grouped } from '../../shared/grouped';

export type OptionKind = 'int' | 'ratio' | 'bool';

export interface OptionField {
  readonly key: string;
  readonly kind: OptionKind;
  /** int: smallest and largest accepted; ratio: 0 or above 0 (`positive`) up to 1. */
  readonly min?: number;
  readonly max?: number;
  readonly positive?: boolean;
  /** What the strategy does when the field is left empty, shown as the placeholder. */
  readonly default: string;
  readonly help: string;
}

const tail = (tailDefault: string): OptionField[] => [
  { key: 'tailRatio', kind: 'ratio', default: tailDefault, help: 'Recent tail kept verbatim, as a share of the window.' },
  { key: 'tailTokens', kind: 'int', min: 0, default: 'from tailRatio', help: 'Recent tail in tokens; overrides tailRatio.' },
];

export const STRATEGY_OPTIONS: Readonly<Record<string, readonly OptionField[]>> = {
  'one-shot': tail('0.2'),
  layered: [
    {
      key: 'concurrency',
      kind: 'int',
      min: 1,
      max: 4,
      default: '4',
      help: 'Map calls in flight at once; 1 is cosh\u2019s sequential mode.',
    },
    {
      key: 'segmentTokens',
      kind: 'int',
      min: 1,
      default: 'all a map request holds',
      help: 'Soft target of a map segment, in item tokens (clamped to what a map request holds).',
    },
    {
      key: 'audit',
      kind: 'bool',
      default: 'true',
      help: 'Run the validator audit and its corrections (\u2264 2) on a MapReduce candidate.',
    },
    { key: 'forceMapReduce', kind: 'bool', default: 'false', help: 'Take the MapReduce path even when one request fits.' },
  ],
  'dsh-basic': [
    { key: 'force', kind: 'bool', default: 'false', help: 'Compact even below the trigger (a manual compaction).' },
    { key: 'thresholdRatio', kind: 'ratio', positive: true, default: '0.8', help: 'Trigger, as a share of the window.' },
    { key: 'retainRatio', kind: 'ratio', default: '0.16', help: 'Recent tail retained, as a share of the window.' },
    { key: 'prune', kind: 'bool', default: 'true', help: 'Run the tool-result pruner first.' },
    { key: 'pruneThreshold', kind: 'int', min: 1, default: '8192', help: 'Tool results longer than this many code points are pruned.' },
    { key: 'pruneHead', kind: 'int', min: 0, default: '4096', help: 'Code points kept at the head of a pruned result.' },
    { key: 'pruneTail', kind: 'int', min: 0, default: '1024', help: 'Code points kept at the tail of a pruned result.' },
  ],
  preemptive: [
    { key: 'force', kind: 'bool', default: 'false', help: 'Compact even below the soft watermark.' },
    {
      key: 'softWatermark',
      kind: 'ratio',
      positive: true,
      default: '0.7',
      help: 'Preemptive trigger on the projected next turn, as a share of the window.',
    },
    { key: 'hardWatermark', kind: 'ratio', positive: true, default: '0.95', help: 'Reactive trigger, as a share of the window.' },
    { key: 'tailKeep', kind: 'int', min: 0, default: '10', help: 'Most recent messages kept verbatim.' },
    { key: 'outputHeadroom', kind: 'int', min: 0, default: '4096', help: 'Tokens kept free for the next reply.' },
    { key: 'summarizerMaxTokens', kind: 'int', min: 1, default: '1024', help: 'Output ceiling of a summary request.' },
    {
      key: 'pendingToolResult',
      kind: 'int',
      min: 0,
      default: 'the latest tool result\u2019s size',
      help: 'Expected size of the next tool result, in tokens.',
    },
    { key: 'maxFailures', kind: 'int', min: 1, default: '3', help: 'Failures before the circuit breaker opens.' },
    { key: 'cooldownTurns', kind: 'int', min: 1, default: '5', help: 'Turns the open breaker waits.' },
  ],
  truncate: [...tail('0.2'), { key: 'keepFirstUser', kind: 'bool', default: 'true', help: 'Keep the first user message after the head.' }],
  'clear-tools': [
    { key: 'keepLast', kind: 'int', min: 0, default: '3', help: 'Most recent tool results kept verbatim; older ones are cleared.' },
  ],
  extractive: [
    ...tail('0.2'),
    {
      key: 'maxTokens',
      kind: 'int',
      min: 1,
      default: 'min(8,192, window/10)',
      help: 'Token budget of the lines copied into the checkpoint.',
    },
  ],
};

export const optionFields = (strategy: string): readonly OptionField[] => STRATEGY_OPTIONS[strategy] ?? [];

/** JSON, as startRerun carries options. */
export type OptionValue = string | number | boolean | null | OptionValue[] | { [key: string]: OptionValue };

const INT = /^\d+$/;
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;
const KEY = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

function fieldValue(f: OptionField, typed: string): Result<OptionValue | undefined> {
  const t = f.kind === 'int' ? typed.trim().replace(/[,_\s]/g, '') : typed.trim();
  if (t === '') return { ok: true, value: undefined };
  if (f.kind === 'bool') {
    if (t === 'true' || t === 'false') return { ok: true, value: t === 'true' };
    return { ok: false, error: `${f.key} is true or false.` };
  }
  if (f.kind === 'int') {
    const min = f.min ?? 0;
    const range = f.max !== undefined ? `from ${min} to ${grouped(f.max)}` : `of at least ${min}`;
    if (!INT.test(t) || Number(t) < min || (f.max !== undefined && Number(t) > f.max) || !Number.isSafeInteger(Number(t))) {
      return { ok: false, error: `${f.key} must be a whole number ${range}.` };
    }
    return { ok: true, value: Number(t) };
  }
  const n = Number(t);
  if (!DECIMAL.test(t) || n > 1 || (f.positive === true && n === 0)) {
    return { ok: false, error: `${f.key} must be a share of the window, ${f.positive ? 'above 0' : 'from 0'} up to 1 (e.g. 0.2).` };
  }
  return { ok: true, value: n };
}

/** "key=value" lines; the value is JSON when it parses (numbers, booleans), else a string — as `--option`. */
export function parseExtra(text: string, typed: ReadonlySet<string>): Result<Record<string, OptionValue>> {
  const out: Record<string, OptionValue> = {};
  for (const line of text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')) {
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq).trim() : '';
    if (key === '') return { ok: false, error: `Other options take one key=value a line, got "${line}".` };
    // Option names are identifiers; this also keeps "__proto__" from reaching the object below.
    if (!KEY.test(key)) return { ok: false, error: `"${key}" is not an option name (letters, digits and _, starting with a letter).` };
    if (typed.has(key)) return { ok: false, error: `${key} has its own field above.` };
    if (key in out) return { ok: false, error: `${key} is given twice.` };
    const raw = line.slice(eq + 1).trim();
    out[key] = jsonOrString(raw);
  }
  return { ok: true, value: out };
}

function jsonOrString(raw: string): OptionValue {
  try {
    return JSON.parse(raw) as OptionValue;
  } catch (err: unknown) {
    // Not JSON: the value is the text itself (a string option), as the CLI reads it.
    if (err instanceof SyntaxError) return raw;
    throw err;
  }
}

/** The options of one strategy as startRerun takes them, or the first thing wrong, in a sentence. */
export function strategyOptions(
  strategy: string,
  typed: Readonly<Record<string, string>>,
  extra: string,
): Result<Record<string, OptionValue>> {
  const fields = optionFields(strategy);
  const out: Record<string, OptionValue> = {};
  for (const f of fields) {
    const v = fieldValue(f, typed[f.key] ?? '');
    if (!v.ok) return v;
    if (v.value !== undefined) out[f.key] = v.value;
  }
  const rest = parseExtra(extra, new Set(fields.map((f) => f.key)));
  if (!rest.ok) return rest;
  return { ok: true, value: { ...out, ...rest.value } };
}

/** "keepLast=1, audit=false" for a job or a run; '' for none. */
export function optionsText(options: Readonly<Record<string, unknown>>): string {
  return Object.entries(options)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
}
