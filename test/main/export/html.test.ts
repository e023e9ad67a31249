import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { PAYLOADS } from '../../../scripts/gen-xss-fixture.mjs';
import { esc } from '../../../src/main/api/export/html-text';
import { fence } from '../../../src/main/api/export/markdown';
import { uncut } from '../../../src/main/api/export/context';
import { exportFixture, NO_REDACTION } from './helpers';

const payloads = PAYLOADS as readonly string[];

/** Every tag name the document opens. */
const tags = (doc: string): Set<string> =>
  new Set([...doc.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)/g)].map((m) => (m[1] as string).toLowerCase()));

describe('HTML export', () => {
  it('shows the XSS fixture as text: no markup, script, handler or link from the session', async () => {
    const { text } = await exportFixture('fixtures/xss/xss.jsonl', { kind: 'html' }, NO_REDACTION);
    // Only the exporter's own tags: none of the session's.
    const own =
      'html head meta title style body header h1 h2 h3 h4 p nav a section div svg path text span table tr th td details summary b pre ol li ul article footer';
    expect([...tags(text)].filter((t) => !own.split(' ').includes(t))).toEqual([]);
    expect(text).not.toMatch(/<[^>]*\son[a-z]+\s*=/i);
    expect(text).not.toMatch(/<[^>]*\s(?:src|action|formaction|xlink:href)\s*=/i);
    // Every link stays on the page.
    for (const m of text.matchAll(/<a\s[^>]*/g)) expect(m[0]).toMatch(/^<a href="#(?:[a-z]\d+|[a-z]+)"$/);
    // The one <svg> is the token chart.
    expect([...text.matchAll(/<svg/g)]).toHaveLength(1);
    for (const p of payloads) expect(text).toContain(esc(p));
  });

  it('declares a policy that lets nothing load or run, before any session text', async () => {
    const { text } = await exportFixture('fixtures/xss/xss.jsonl', { kind: 'html' }, NO_REDACTION);
    const csp = text.indexOf(
      'http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:',
    );
    expect(csp).toBeGreaterThan(0);
    expect(csp).toBeLessThan(text.indexOf('<title>'));
  });

  it('holds the views, compactions, findings, chart and raw history of a session', async () => {
    const { text } = await exportFixture('fixtures/palimpsest/basic.jsonl', { kind: 'html' }, NO_REDACTION);
    for (const id of ['tokens', 'findings', 'compactions', 'requests', 'envelope', 'history'])
      expect(text).toContain(`<section id="${id}">`);
    // Ten requests, each with its view; every item of the branch in the raw history.
    for (let i = 0; i < 10; i++) expect(text).toContain(`<details id="r${i}">`);
    expect(text).not.toContain('<details id="r10">');
    expect(text).toContain('<article id="i0">');
    // The compaction: trigger, outcome, tokens, its summarizer attempt and the summary text.
    expect(text).toContain('<b>cmp_01</b> · manual · <span class="ok">committed</span> · 1,224 → 855 tokens');
    expect(text).toContain('1. <a href="#r6">request 6</a> · claude-haiku-4-5 · finish end_turn');
    expect(text).toContain('Fix the failing test `paginate › returns the last page`');
    // A view lists the checkpoint that replaced the history, and says what became of the raw items.
    expect(text).toMatch(/<details id="r7">[\s\S]*?class="derived"><a href="#i\d+">#\d+<\/a> checkpoint[\s\S]*?summarised by cmp_01/);
    expect(text.endsWith('</html>\n')).toBe(true);
  });

  it('lists the findings with their rule and place', async () => {
    const { text } = await exportFixture('fixtures/palimpsest/compaction-lifecycle.jsonl', { kind: 'html' }, NO_REDACTION);
    expect(text).toMatch(/<h2>Findings \([1-9]\d*\)<\/h2>/);
    expect(text).toMatch(/<td class="(error|warning|info)">/);
  });
});

describe('Markdown export of a compaction', () => {
  it('fences the summary with more backticks than any run inside it', () => {
    expect(fence('plain')).toBe('```');
    expect(fence('a ``` b')).toBe('````');
    expect(fence('a ````` b ``')).toBe('``````');
  });

  it('gives trigger, tokens, attempts with finish reason, the summary and survival', async () => {
    const { text } = await exportFixture('fixtures/palimpsest/basic.jsonl', { kind: 'markdown', compaction: 'cmp_01' }, NO_REDACTION);
    expect(text).toContain('### Compaction `cmp_01`');
    expect(text).toContain('- Trigger: manual');
    expect(text).toContain('- Tokens: 1,224 → 855');
    expect(text).toContain('- Outcome: committed');
    expect(text).toContain('1. request 6 · claude-haiku-4-5 · finish end\\_turn (stop) · output 148 tokens');
    expect(text).toMatch(/```text\n## Objective\nFix the failing test/);
    expect(text).toContain('#### Survival of what it replaced');
  });

  it('refuses a compaction the session does not have, naming those it has', async () => {
    await expect(exportFixture('fixtures/palimpsest/basic.jsonl', { kind: 'markdown', compaction: 'nope' }, NO_REDACTION)).rejects.toThrow(
      'compactions: cmp_01',
    );
  });
});

describe('a text the API cut', () => {
  it('ends at its last whitespace, so no token is exported in part', () => {
    expect(uncut({ text: 'keep this sk-proj-abcdef', truncated: true })).toBe('keep this');
    expect(uncut({ text: 'whole sk-proj-abcdef', truncated: false })).toBe('whole sk-proj-abcdef');
    expect(uncut({ text: 'oneword', truncated: true })).toBe('');
  });
});
