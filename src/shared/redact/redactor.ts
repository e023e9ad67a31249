import { ownPatterns, replaceInWindows, type OwnPattern } from './own-patterns';
import { RULES, type RedactionRule } from './patterns';

/**
 * Redaction of exported text (docs/export.md). Pure text work: every string an export writes goes
 * through `text()`, which replaces what a rule matches with `[REDACTED:rule]` and records where.
 *
 * While a text is redacted, a marker is written between two private-use characters absent from the
 * text, so that no later rule takes a marker for a value and every marker of the result can be found
 * again (for the preview's excerpts) without mistaking a `[REDACTED:…]` the session itself wrote.
 */

/** Where a redaction happened: the part of the export (request, item, compaction, …) and the field. */
export interface Where {
  readonly place: string;
  readonly field: string;
}

export interface Redaction extends Where {
  readonly rule: string;
  /** The redacted text around it, the secret already replaced: nothing secret is ever shown. */
  readonly excerpt: string;
}

export interface RedactionOptions {
  /** The built-in rules (RULES); off: only the own patterns. */
  readonly builtIn: boolean;
  /** The user's own patterns, as typed; a bad one throws PatternError. */
  readonly patterns: readonly string[];
}

/** Characters either side of a marker in an excerpt. */
const EXCERPT_SIDE = 32;
/** Most redactions listed; the rest are counted. */
export const MAX_LISTED = 10_000;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]+/g;

export const marker = (rule: string): string => `[REDACTED:${rule}]`;

/** Two private-use characters the text does not hold (practically always the first two). */
function sentinels(text: string): [string, string] {
  const free: string[] = [];
  for (let c = 0xe000; c <= 0xf8ff && free.length < 2; c++) {
    const ch = String.fromCharCode(c);
    if (!text.includes(ch)) free.push(ch);
  }
  return [free[0] as string, free[1] as string];
}

type Groups = Record<string, string | undefined> | undefined;

/** The replacement of one match: the whole match, or only its named group, which ends it. */
function replaced(match: string, groups: Groups, name: string, open: string, close: string): string {
  if (match === '') return match;
  const secret = groups ? Object.values(groups).find((v) => v !== undefined && v !== '') : undefined;
  const keep = secret !== undefined && match.endsWith(secret) ? match.slice(0, match.length - secret.length) : '';
  return `${keep}${open}${name}${close}`;
}

export class Redactor {
  private readonly rules: readonly RedactionRule[];
  private readonly own: readonly OwnPattern[];
  readonly listed: Redaction[] = [];
  /** Redactions per rule, all of them (listed or not). */
  readonly counts = new Map<string, number>();
  private total = 0;

  constructor(options: RedactionOptions) {
    this.rules = options.builtIn ? RULES : [];
    this.own = ownPatterns(options.patterns);
  }

  get active(): boolean {
    return this.rules.length > 0 || this.own.length > 0;
  }

  get count(): number {
    return this.total;
  }

  /** The text with every match replaced by its marker; each redaction recorded at `where`. */
  text(text: string, where: Where): string {
    if (!this.active || text.length === 0) return text;
    const [open, close] = sentinels(text);
    let out = text;
    for (const r of this.rules) {
      r.regex.lastIndex = 0;
      if (!r.regex.test(out)) continue;
      out = out.replace(r.regex, (m: string, ...rest: unknown[]) => {
        const last = rest[rest.length - 1];
        return replaced(m, typeof last === 'object' && last !== null ? (last as Groups) : undefined, r.name, open, close);
      });
    }
    if (this.own.length > 0) {
      // An own pattern sees only the text between markers: it must not eat half of one.
      const markers = new RegExp(`${open}[^${close}]*${close}`, 'g');
      for (const p of this.own) {
        let next = '';
        let at = 0;
        const own = (s: string): void => {
          next += replaceInWindows(s, p.regex, (m: string) => replaced(m, undefined, p.name, open, close));
        };
        for (const m of out.matchAll(markers)) {
          own(out.slice(at, m.index));
          next += m[0];
          at = m.index + m[0].length;
        }
        own(out.slice(at));
        out = next;
      }
    }
    if (!out.includes(open)) return out;
    return this.settle(out, open, close, where);
  }

  /** Writes the final markers, recording each with an excerpt of the redacted text around it. */
  private settle(out: string, open: string, close: string, where: Where): string {
    const parts = out.split(open);
    let result = parts[0] as string;
    const found: { rule: string; at: number; end: number }[] = [];
    for (let i = 1; i < parts.length; i++) {
      const part = parts[i] as string;
      const cut = part.indexOf(close);
      const rule = part.slice(0, cut);
      const m = marker(rule);
      found.push({ rule, at: result.length, end: result.length + m.length });
      result += m + part.slice(cut + 1);
    }
    for (const f of found) {
      this.total++;
      this.counts.set(f.rule, (this.counts.get(f.rule) ?? 0) + 1);
      if (this.listed.length >= MAX_LISTED) continue;
      const from = Math.max(0, f.at - EXCERPT_SIDE);
      const to = Math.min(result.length, f.end + EXCERPT_SIDE);
      const excerpt = `${from > 0 ? '…' : ''}${result.slice(from, to).replace(CONTROL, ' ')}${to < result.length ? '…' : ''}`;
      this.listed.push({ rule: f.rule, place: where.place, field: where.field, excerpt });
    }
    return result;
  }
}
