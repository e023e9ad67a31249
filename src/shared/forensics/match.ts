import type { Anchor, Category, Match } from './categories';
import { numbersIn, numberValue } from './extract/numbers';

/*
 * Where an anchor went: in the text the agent sees after the compaction (the summary and the items
 * it kept) as written (verbatim), in another form (normalised), or nowhere (lost). The normal forms,
 * per category:
 * - paths: the last directory and the file name ("src/a/b.ts" for "/home/x/repo/src/a/b.ts", or
 *   a path made relative);
 * - numbers: the value and unit ("12,000", "12000" and "12k" are one number; a unit on one side only
 *   does not tell them apart);
 * - commands, errors: case and runs of white space ignored; an error also counts from its first 40
 *   characters, as a summary quotes an error in part;
 * - identifiers: case, "_" and "-" ignored (parseConfig, parse_config);
 * - URLs: without the scheme, a trailing slash, the query or the fragment;
 * - constraints, tasks, decisions (sentences, which a summary restates): most of the sentence's
 *   content words (at least 60 %, and for a constraint its negation too) on one line of the target.
 */

export class Target {
  readonly text: string;
  private lowerFlat: string | null = null;
  private identFlat: string | null = null;
  private values: Set<string> | null = null;
  private lineWords: Set<string>[] | null = null;
  private rawLines: string[] | null = null;

  constructor(text: string) {
    this.text = text;
  }

  get flat(): string {
    return (this.lowerFlat ??= this.text.toLowerCase().replace(/\s+/g, ' '));
  }

  get idents(): string {
    return (this.identFlat ??= this.text.toLowerCase().replace(/[_-]/g, ''));
  }

  get numbers(): Set<string> {
    if (!this.values) {
      this.values = new Set();
      for (const n of numbersIn(this.text)) {
        const v = numberValue(n);
        if (!v) continue;
        this.values.add(`v:${v.value}`);
        this.values.add(`u:${v.value}${v.unit}`);
      }
    }
    return this.values;
  }

  /** The content words of each line (and of each pair of adjacent lines: a restated sentence may wrap). */
  /** The target's lines and sentences, as `lines` numbers them. */
  get raw(): string[] {
    return (this.rawLines ??= this.text.split(/\n|(?<=[.!?])\s+/));
  }

  get lines(): Set<string>[] {
    if (!this.lineWords) {
      const per = this.raw.map((l) => new Set(contentWords(l)));
      this.lineWords = per.map((w, i) => (i + 1 < per.length ? new Set([...w, ...(per[i + 1] as Set<string>)]) : w));
    }
    return this.lineWords;
  }
}

const STOP = new Set(
  'the a an and or but if then than that this these those with without from into onto for of to in on at by as is are was were be been being it its we you i me my our your they them their he she his her not no do does did done have has had will would should could can may might must shall just also only very more most some any all each every other such same so too there here what which who whom when where why how about after before over under again once please use using make sure'.split(
    ' ',
  ),
);

/** Lower-case words of four letters or more (a crude stem: a final "s", "ed", "ing" cut), stop words out. */
function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const w of text.toLowerCase().match(/[a-z0-9][a-z0-9_./-]*[a-z0-9]/g) ?? []) {
    if (w.length < 4 || STOP.has(w)) continue;
    out.push(w.replace(/(?:ing|ed|es|s)$/, ''));
  }
  return out;
}

const NEGATION = /\b(?:never|not|don'?t|no|avoid|only|always|must)\b/i;

function sentenceMatch(a: Anchor, t: Target): boolean {
  const words = [...new Set(contentWords(a.text))];
  if (words.length === 0) return false;
  const need = Math.max(1, Math.ceil(words.length * 0.6));
  for (let i = 0; i < t.lines.length; i++) {
    const line = t.lines[i] as Set<string>;
    let n = 0;
    for (const w of words) if (line.has(w)) n++;
    if (n < need) continue;
    if (a.category !== 'constraints') return true;
    // A constraint restated without its "never"/"only" is not the same constraint.
    if (NEGATION.test(`${t.raw[i] ?? ''} ${t.raw[i + 1] ?? ''}`)) return true;
  }
  return false;
}

function flat(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

function normalised(a: Anchor, t: Target): boolean {
  switch (a.category as Category) {
    case 'paths': {
      const parts = a.text
        .replace(/\/+$/, '')
        .split('/')
        .filter((p) => p.length > 0 && p !== '.' && p !== '..' && p !== '~');
      if (parts.length < 2) return false;
      return t.text.includes(parts.slice(-2).join('/'));
    }
    case 'numbers': {
      const v = numberValue(a.text);
      // A unit on one side only is the same number ("12k" and "12000 tokens"); two different units are not.
      if (v === null) return false;
      return v.unit === '' ? t.numbers.has(`v:${v.value}`) : t.numbers.has(`u:${v.value}${v.unit}`) || t.numbers.has(`u:${v.value}`);
    }
    case 'commands':
      return t.flat.includes(flat(a.text.replace(/^\$\s+/, '')));
    case 'errors': {
      const f = flat(a.text);
      return t.flat.includes(f) || (f.length > 40 && t.flat.includes(f.slice(0, 40)));
    }
    case 'identifiers':
      return t.idents.includes(a.text.toLowerCase().replace(/[_-]/g, ''));
    case 'urls': {
      const bare = a.text
        .replace(/^[a-z]+:\/\//i, '')
        .replace(/[?#].*$/, '')
        .replace(/\/+$/, '');
      return bare.length >= 6 && t.text.includes(bare);
    }
    case 'constraints':
    case 'tasks':
    case 'decisions':
      return sentenceMatch(a, t);
  }
}

export function matchAnchor(a: Anchor, t: Target): Match {
  if (t.text.includes(a.text)) return 'verbatim';
  return normalised(a, t) ? 'normalised' : 'lost';
}
