import type { Block, LeafBlock } from '../../model/content';

/*
 * Head + marker + tail shortening of tool-result bodies, shared by Rind's budget precheck
 * (first 2,000 + last 2,000 characters, omitted amount marked) and DeepSeek Harness's tool-result
 * pruner (8,192 code points -> 4,096 head + fixed marker + 1,024 tail). Only the text leaves of
 * `tool_result` blocks are ever touched: user text and tool arguments are exempt (Rind).
 */

/** 'chars' counts UTF-16 code units; 'codepoints' counts Unicode code points. Neither splits a surrogate pair. */
export type CutUnit = 'chars' | 'codepoints';

export interface CutRule {
  /** Bodies longer than this (in `unit`) are cut; shorter or equal ones are left alone. */
  readonly threshold: number;
  readonly head: number;
  readonly tail: number;
  readonly unit: CutUnit;
  /** The text put between head and tail; given the amount omitted (in `unit`). */
  readonly marker: (omitted: number) => string;
}

export interface Cut {
  readonly text: string;
  /** Amounts actually kept and omitted, in the rule's unit. */
  readonly head: number;
  readonly tail: number;
  readonly omitted: number;
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** True when a surrogate pair sits across code-unit index i (s[i-1] high, s[i] low). */
function pairAt(s: string, i: number): boolean {
  return i > 0 && i < s.length && isHigh(s.charCodeAt(i - 1)) && isLow(s.charCodeAt(i));
}

/** Code points of a string; a lone surrogate counts as one. */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if (isHigh(s.charCodeAt(i)) && pairAt(s, i + 1)) i++;
    n++;
  }
  return n;
}

/** Code-unit index just after the first k code points. */
function afterCodePoints(s: string, k: number): number {
  let i = 0;
  for (let n = 0; n < k && i < s.length; n++) i += isHigh(s.charCodeAt(i)) && pairAt(s, i + 1) ? 2 : 1;
  return i;
}

/** Code-unit index where the last k code points start. */
function beforeCodePoints(s: string, k: number): number {
  let i = s.length;
  for (let n = 0; n < k && i > 0; n++) i -= pairAt(s, i - 1) ? 2 : 1;
  return i;
}

/**
 * Cut one text by the rule, or null when it is not over the threshold or cutting would not make it
 * shorter (a body just over head + tail would grow by the marker). A 'chars' cut that would land
 * inside a surrogate pair keeps the pair out of the head and out of the tail.
 */
export function cutHeadTail(text: string, rule: CutRule): Cut | null {
  const length = rule.unit === 'codepoints' ? codePointLength(text) : text.length;
  if (length <= rule.threshold || length <= rule.head + rule.tail) return null;
  let headEnd: number;
  let tailStart: number;
  if (rule.unit === 'codepoints') {
    headEnd = afterCodePoints(text, rule.head);
    tailStart = beforeCodePoints(text, rule.tail);
  } else {
    headEnd = pairAt(text, rule.head) ? rule.head - 1 : rule.head;
    tailStart = pairAt(text, text.length - rule.tail) ? text.length - rule.tail + 1 : text.length - rule.tail;
  }
  const headText = text.slice(0, headEnd);
  const tailText = text.slice(tailStart);
  const measure = (t: string): number => (rule.unit === 'codepoints' ? codePointLength(t) : t.length);
  const head = measure(headText);
  const tail = measure(tailText);
  const omitted = length - head - tail;
  const out = headText + rule.marker(omitted) + tailText;
  if (out.length >= text.length) return null;
  return { text: out, head, tail, omitted };
}

export interface ShortenedBlocks {
  readonly blocks: Block[];
  /** Bodies cut, and the sums of what was kept and omitted over them. */
  readonly cuts: number;
  readonly head: number;
  readonly tail: number;
  readonly omitted: number;
}

/**
 * Apply a rule to every text leaf of every tool_result block; other blocks (and non-text leaves)
 * keep their place and order (DeepSeek Harness: "non-text blocks keep relative order"). null when
 * nothing was cut.
 */
export function shortenToolBodies(blocks: readonly Block[], rule: CutRule): ShortenedBlocks | null {
  let cuts = 0;
  let head = 0;
  let tail = 0;
  let omitted = 0;
  const out = blocks.map((b): Block => {
    if (b.type !== 'tool_result') return b;
    let changed = false;
    const content = b.content.map((leaf): LeafBlock => {
      if (leaf.type !== 'text') return leaf;
      const cut = cutHeadTail(leaf.text, rule);
      if (!cut) return leaf;
      changed = true;
      cuts++;
      head += cut.head;
      tail += cut.tail;
      omitted += cut.omitted;
      return { type: 'text', text: cut.text };
    });
    return changed ? { ...b, content } : b;
  });
  return cuts === 0 ? null : { blocks: out, cuts, head, tail, omitted };
}
