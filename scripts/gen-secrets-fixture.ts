// Writes fixtures/secrets/secrets.jsonl: a Palimpsest v1 session (docs/format.md) with the example
// of every redaction rule (src/shared/redact/patterns.ts) in every kind of text an export writes —
// title, system prompt, tool description and schema, user and assistant text, reasoning, tool call
// input (as JSON, so newlines are written \n), tool result, summarizer instruction, summary,
// checkpoint and error message. test/main/export/secrets.test.ts checks that no example survives
// an export with --redact. The examples are made up; none is a real credential.
// Usage: npx tsx scripts/gen-secrets-fixture.ts   (deterministic; rerun after adding a rule)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RULES } from '../src/shared/redact/patterns';

const all = RULES.map((r) => `${r.name}: ${r.example}`).join('\n');
const text = (t: string) => ({ type: 'text', text: t });
const at = (i: number) => new Date(Date.UTC(2026, 2, 2, 9, 0, i)).toISOString();

function events(): Record<string, unknown>[] {
  const ev: Record<string, unknown>[] = [
    {
      kind: 'session',
      format: 'palimpsest',
      version: 1,
      id: 'secrets',
      harness: 'secrets-corpus',
      title: `Secrets ${all.replace(/\n/g, ' | ')}`,
    },
    {
      kind: 'header',
      system: [text(`System prompt with secrets:\n${all}`)],
      tools: [{ name: 'run', description: `Run a command.\n${all}`, inputSchema: { type: 'object', description: all } }],
      route: { provider: 'anthropic', model: 'claude-sonnet-4-5', window: 200000, maxOutput: 8192 },
    },
    { kind: 'item', item: { id: 'u1', role: 'user', blocks: [text(`Here are my credentials:\n${all}`)] } },
    { kind: 'request', id: 'req_1' },
    {
      kind: 'item',
      item: {
        id: 'a1',
        role: 'assistant',
        blocks: [
          { type: 'reasoning', text: `Thinking about:\n${all}` },
          text(`I will use:\n${all}`),
          { type: 'tool_call', id: 'call_1', name: 'run', input: JSON.stringify({ command: `cat .env`, env: all }) },
        ],
      },
    },
    { kind: 'response', request: 'req_1', finish: { raw: 'tool_use', reason: 'tool_calls' }, usage: { input: 1200, output: 80 } },
    { kind: 'item', item: { id: 't1', role: 'tool', blocks: [{ type: 'tool_result', callId: 'call_1', content: [text(all)] }] } },
    { kind: 'request', id: 'req_2' },
    { kind: 'response', request: 'req_2', error: { code: 'bad_request', message: `Rejected:\n${all}` } },
    {
      kind: 'compaction/start',
      id: 'cmp_1',
      trigger: 'manual',
      strategy: 'one-shot summary',
      preTokens: 1500,
      source: ['u1', 'a1', 't1'],
    },
    {
      kind: 'request',
      id: 'req_3',
      purpose: 'compaction',
      compactionId: 'cmp_1',
      route: { provider: 'anthropic', model: 'claude-haiku-4-5', window: 200000, maxOutput: 8192 },
      input: { items: ['u1', 'a1', 't1'], instruction: [text(`Summarise. Keep these:\n${all}`)] },
    },
    { kind: 'response', request: 'req_3', finish: { raw: 'end_turn', reason: 'stop' }, usage: { input: 1400, output: 300 } },
    { kind: 'compaction/summary', id: 'cmp_1', summary: [text(`## Done\nThe user gave:\n${all}`)] },
    {
      kind: 'item',
      item: {
        id: 'k1',
        role: 'user',
        blocks: [text(`Summary of the earlier conversation:\n${all}`)],
        derivation: { kind: 'checkpoint', compactionId: 'cmp_1', covers: ['u1', 'a1', 't1'], part: 'summary' },
      },
      op: { op: 'replace', from: 'u1', to: 't1' },
      sources: [9, 12, 2, 4, 6],
    },
    { kind: 'compaction/end', id: 'cmp_1', outcome: 'committed', postTokens: 400 },
    { kind: 'item', item: { id: 'u2', role: 'user', blocks: [text('Thanks.')] } },
    { kind: 'request', id: 'req_4' },
    { kind: 'item', item: { id: 'a2', role: 'assistant', blocks: [text('Done.')] } },
    { kind: 'response', request: 'req_4', finish: { raw: 'end_turn', reason: 'stop' }, usage: { input: 500, output: 5 } },
  ];
  return ev.map((e, seq) => ({ ...e, seq, at: at(seq) }));
}

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'secrets', 'secrets.jsonl');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${events()
    .map((e) => JSON.stringify(e))
    .join('\n')}\n`,
);
process.stdout.write(`wrote ${out}\n`);
