#!/usr/bin/env node
// Writes fixtures/xss/xss.jsonl: a Palimpsest v1 session (docs/format.md) whose system prompt, user
// messages, reasoning, tool call inputs and tool results carry HTML/Markdown injection payloads.
// The end-to-end suite (test/e2e/xss.test.ts) opens it in Chromium and checks that every payload is
// shown as inert text: no dialog, no console error, no request off the host's origin.
// Usage: node scripts/gen-xss-fixture.mjs   (deterministic; rerun after editing PAYLOADS)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Exported so the test checks exactly what was written. */
export const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '[link](javascript:alert(1))',
  '<a href="javascript:alert(1)">x</a>',
  '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><circle r="5"/></svg>',
  '<iframe src="http://example.invalid/frame.html"></iframe>',
  '<img src="http://example.invalid/x.png">',
];

const all = PAYLOADS.join(' ');
const text = (t) => ({ type: 'text', text: t });
const at = (i) => new Date(Date.UTC(2026, 2, 2, 9, 0, i)).toISOString();

export function events() {
  const ev = [
    { kind: 'session', format: 'palimpsest', version: 1, id: 'xss', harness: 'xss-corpus', title: `XSS corpus ${PAYLOADS[0]}` },
    {
      kind: 'header',
      system: [text(`System prompt with payloads: ${all}`)],
      tools: [
        {
          name: 'read_file',
          description: `Read a file. ${PAYLOADS[1]}`,
          inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
      route: { provider: 'anthropic', model: 'claude-sonnet-4-5', window: 200000, maxOutput: 8192 },
    },
  ];
  PAYLOADS.forEach((p, i) => {
    const n = i + 1;
    ev.push({ kind: 'item', item: { id: `u${n}`, role: 'user', blocks: [text(`user ${n}: ${p}`)] } });
    ev.push({ kind: 'request', id: `req_${n}` });
    ev.push({
      kind: 'item',
      item: {
        id: `a${n}`,
        role: 'assistant',
        blocks: [
          { type: 'reasoning', text: `reasoning ${n}: ${p}` },
          text(`assistant ${n}: ${p}`),
          { type: 'tool_call', id: `call_${n}`, name: 'read_file', input: JSON.stringify({ path: p }) },
        ],
      },
    });
    ev.push({
      kind: 'response',
      request: `req_${n}`,
      finish: { raw: 'tool_use', reason: 'tool_calls' },
      usage: { input: 100 * n, output: 10 },
    });
    ev.push({
      kind: 'item',
      item: {
        id: `t${n}`,
        role: 'tool',
        blocks: [{ type: 'tool_result', callId: `call_${n}`, content: [text(`tool result ${n}: ${p}`)] }],
      },
    });
  });
  ev.push({ kind: 'request', id: 'req_last' });
  ev.push({ kind: 'item', item: { id: 'a_last', role: 'assistant', blocks: [text(`done: ${all}`)] } });
  ev.push({ kind: 'response', request: 'req_last', finish: { raw: 'end_turn', reason: 'stop' }, usage: { input: 1000, output: 20 } });
  return ev.map((e, seq) => ({ ...e, seq, ...(seq > 0 ? { at: at(seq) } : { at: at(0) }) }));
}

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'xss', 'xss.jsonl');
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    events()
      .map((e) => JSON.stringify(e))
      .join('\n') + '\n',
  );
  process.stdout.write(`wrote ${out}\n`);
}
