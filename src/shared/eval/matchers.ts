import { z } from 'zod';
import { REGEX_FLAGS, regexHazard, regexTest } from './regex-guard';

/*
 * Deterministic matchers of a fact: how a person says "this fact is present in that text" without
 * asking a model. Four forms, nestable:
 *   "JSONL"                         shorthand for { text: "JSONL" }
 *   { text, ignoreCase? }           verbatim substring; runs of whitespace compare equal to one space
 *   { regex, flags? }               a JavaScript regex (flags from i, m, s, u), guarded (regex-guard.ts)
 *   { anyOf: [m, …] }  { allOf: [m, …] }
 * A matcher is evaluated over a list of texts (the items of a view), and says where it matched: the
 * "sites" the provenance score looks at.
 */

export type Matcher =
  | { readonly text: string; readonly ignoreCase?: boolean }
  | { readonly regex: string; readonly flags?: string }
  | { readonly anyOf: readonly Matcher[] }
  | { readonly allOf: readonly Matcher[] };

/** What a facts file may write (the schema takes unknown input and says what is wrong with it). */
export type MatcherInput =
  | string
  | { text: string; ignoreCase?: boolean }
  | { regex: string; flags?: string }
  | { anyOf: MatcherInput[] }
  | { allOf: MatcherInput[] };

const collapse = (s: string): string => s.replace(/\s+/g, ' ');

/** Compiles a fact regex, or says why it cannot be used. */
export function compileRegex(source: string, flags = ''): { ok: true; re: RegExp } | { ok: false; error: string } {
  if (!REGEX_FLAGS.test(flags)) return { ok: false, error: `flags "${flags}" are not allowed (use any of i, m, s, u, each once)` };
  let re: RegExp;
  try {
    re = new RegExp(source, flags);
  } catch (err) {
    return { ok: false, error: `not a valid regular expression: ${(err as Error).message}` };
  }
  const hazard = regexHazard(source);
  return hazard === null ? { ok: true, re } : { ok: false, error: hazard };
}

const TextMatcher = z.strictObject({
  text: z.string().refine((s) => s.trim() !== '', 'an empty text matches everything'),
  ignoreCase: z.boolean().optional(),
});

const RegexMatcher = z
  .strictObject({ regex: z.string().min(1, 'an empty regex matches everything'), flags: z.string().optional() })
  .superRefine((m, ctx) => {
    const c = compileRegex(m.regex, m.flags);
    if (!c.ok) ctx.addIssue({ code: 'custom', message: c.error, path: ['regex'] });
  });

const blank = (s: string): boolean => s.trim() === '';

/**
 * One branch per shape, chosen by the key present, so an error names what is wrong with the
 * matcher the author meant (a union would only say "invalid input").
 */
export const Matcher: z.ZodType<Matcher, unknown> = z.lazy(() =>
  z.unknown().transform((v, ctx): Matcher => {
    const forward = (r: z.ZodSafeParseResult<Matcher>): Matcher => {
      if (r.success) return r.data;
      for (const i of r.error.issues) ctx.addIssue({ code: 'custom', message: i.message, path: i.path });
      return z.NEVER;
    };
    if (typeof v === 'string') {
      if (!blank(v)) return { text: v };
      ctx.addIssue({ code: 'custom', message: 'an empty text matches everything' });
      return z.NEVER;
    }
    const obj = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
    if (obj && 'text' in obj) return forward(TextMatcher.safeParse(obj));
    if (obj && 'regex' in obj) return forward(RegexMatcher.safeParse(obj));
    if (obj && 'anyOf' in obj) return forward(z.strictObject({ anyOf: z.array(Matcher).min(1) }).safeParse(obj));
    if (obj && 'allOf' in obj) return forward(z.strictObject({ allOf: z.array(Matcher).min(1) }).safeParse(obj));
    ctx.addIssue({ code: 'custom', message: 'a matcher is a text, or an object with one of text, regex, anyOf, allOf' });
    return z.NEVER;
  }),
);

/** The texts a matcher runs over, with the normalised forms computed once. */
export class Haystack {
  private collapsed: string[] | null = null;
  private lower: string[] | null = null;
  constructor(readonly texts: readonly string[]) {}

  get spaced(): readonly string[] {
    this.collapsed ??= this.texts.map(collapse);
    return this.collapsed;
  }

  get spacedLower(): readonly string[] {
    this.lower ??= this.spaced.map((t) => t.toLowerCase());
    return this.lower;
  }
}

export interface Evaluation {
  readonly matched: boolean;
  /** Indices of the texts the match was found in (see `evaluate`). */
  readonly sites: readonly number[];
}

const regexCache = new Map<string, RegExp>();

function cachedRegex(source: string, flags: string): RegExp | null {
  const key = `${flags}/${source}`;
  const hit = regexCache.get(key);
  if (hit) return hit;
  const c = compileRegex(source, flags);
  if (!c.ok) return null;
  if (regexCache.size > 1_000) regexCache.clear();
  regexCache.set(key, c.re);
  return c.re;
}

const indices = (n: number, keep: (i: number) => boolean): number[] => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (keep(i)) out.push(i);
  return out;
};

/**
 * Where a matcher matches. text/regex: every text it matches in. anyOf: the union of the sites of
 * the parts that matched. allOf: matched when every part matched somewhere; its sites are the texts
 * where all parts match together, or, when the parts are spread over several texts, all of those.
 * A regex that does not compile (a facts file that skipped validation) matches nothing.
 */
export function evaluate(m: Matcher, hay: Haystack): Evaluation {
  const n = hay.texts.length;
  if ('text' in m) {
    const needle = collapse(m.text);
    const sites = m.ignoreCase
      ? indices(n, (i) => (hay.spacedLower[i] as string).includes(needle.toLowerCase()))
      : indices(n, (i) => (hay.spaced[i] as string).includes(needle));
    return { matched: sites.length > 0, sites };
  }
  if ('regex' in m) {
    const re = cachedRegex(m.regex, m.flags ?? '');
    const sites = re ? indices(n, (i) => regexTest(re, hay.texts[i] as string)) : [];
    return { matched: sites.length > 0, sites };
  }
  if ('anyOf' in m) {
    const parts = m.anyOf.map((x) => evaluate(x, hay)).filter((e) => e.matched);
    return { matched: parts.length > 0, sites: [...new Set(parts.flatMap((e) => e.sites))].sort((a, b) => a - b) };
  }
  const parts = m.allOf.map((x) => evaluate(x, hay));
  if (!parts.every((e) => e.matched)) return { matched: false, sites: [] };
  const together = (parts[0]?.sites ?? []).filter((s) => parts.every((e) => e.sites.includes(s)));
  const sites = together.length > 0 ? together : [...new Set(parts.flatMap((e) => e.sites))].sort((a, b) => a - b);
  return { matched: true, sites };
}

/** A short description of a matcher for reports: text "JSONL", /keyless\s+replay/i, anyOf(…). */
export function describeMatcher(m: Matcher): string {
  if ('text' in m) return `text "${m.text.length > 60 ? `${m.text.slice(0, 57)}…` : m.text}"${m.ignoreCase ? ' (any case)' : ''}`;
  if ('regex' in m) return `/${m.regex.length > 60 ? `${m.regex.slice(0, 57)}…` : m.regex}/${m.flags ?? ''}`;
  if ('anyOf' in m) return `anyOf(${m.anyOf.map(describeMatcher).join(', ')})`;
  return `allOf(${m.allOf.map(describeMatcher).join(', ')})`;
}
