import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuilt, type Run } from './run-built';

const DIR = 'fixtures/fidelity/logs/claude-code-2.1.332/tools-resume';
const LOG = join(DIR, (JSON.parse(readFileSync(join(DIR, 'run.json'), 'utf8')) as { mainLog: string }).mainLog);

/** A run killed, or ended by a signal, is code -1: never taken for exit 0. */
const run = (...args: string[]): Promise<Run> => runBuilt(args, 120_000);

/** The body of captured wire request `seq` (in tools-resume wire request N is the log's request N). */
function captured(seq: number): Record<string, unknown> {
  for (const line of readFileSync(join(DIR, 'captured.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as { seq?: number; body?: string };
    if (r.seq === seq && r.body) return JSON.parse(r.body) as Record<string, unknown>;
  }
  throw new Error(`no captured request ${seq}`);
}

const strip = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(strip)
    : typeof v === 'object' && v !== null
      ? Object.fromEntries(
          Object.entries(v)
            .filter(([k]) => k !== 'cache_control')
            .map(([k, x]) => [k, strip(x)]),
        )
      : v;

describe('palimpsest view --wire', () => {
  it('prints the Anthropic body alone on stdout (the captured messages) and the unknowns on stderr', async () => {
    for (const flag of [['--wire'], ['--wire', 'anthropic'], ['--wire=anthropic']]) {
      const r = await run('view', LOG, '--request', '4', ...flag);
      expect(r.code).toBe(0);
      const body = JSON.parse(r.stdout) as Record<string, unknown>;
      const wire = captured(4);
      // The view carries neither cache_control nor other message fields (output_config).
      const roleAndContent = (ms: unknown): unknown =>
        (ms as { role: unknown; content: unknown }[]).map((m) => ({ role: m.role, content: m.content }));
      expect(strip(body.messages)).toEqual(strip(roleAndContent(wire.messages)));
      expect(body.model).toBe(wire.model);
      expect((body.tools as unknown[]).length).toBe((wire.tools as unknown[]).length);
      expect(Object.keys(body)).toEqual(['model', 'system', 'tools', 'messages']);
      const lines = r.stderr.trim().split('\n');
      expect(lines.every((l) => l.startsWith('unknown: '))).toBe(true);
      expect(lines).toContain('unknown: max_tokens (the log does not record it)');
      expect(r.stderr).toContain('x-anthropic-billing-header');
    }
  });

  it('prints the Responses and Chat shapes on request', async () => {
    const responses = await run('view', LOG, '--request', '1', '--wire', 'responses');
    expect(responses.code).toBe(0);
    const rb = JSON.parse(responses.stdout) as { input: { type: string }[]; instructions: string };
    expect(rb.input.map((i) => i.type)).toContain('function_call_output');
    expect(rb.instructions).toContain('Claude agent');
    const chat = await run('view', LOG, '--request', '1', '--wire', 'chat');
    expect(chat.code).toBe(0);
    const cb = JSON.parse(chat.stdout) as { messages: { role: string; tool_call_id?: string }[] };
    expect(cb.messages.find((m) => m.role === 'tool')?.tool_call_id).toBe('toolu_mock_0_1');
  });

  it('rejects an unknown shape, and --wire with --json, as bad usage', async () => {
    const bad = await run('view', LOG, '--request', '1', '--wire=xml');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--wire takes anthropic, responses, chat');
    const both = await run('view', LOG, '--request', '1', '--wire', '--json');
    expect(both.code).toBe(2);
    const missing = await run('view', LOG, '--request', '99', '--wire');
    expect(missing.code).toBe(2);
  });
});
