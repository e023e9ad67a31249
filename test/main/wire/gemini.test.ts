import { describe, expect, it } from 'vitest';
import { fromGemini } from '../../../src/main/capture/wire-gemini';
import { normalizeBody } from '../../../src/main/wire/normalize';

/** A request as Gemini CLI 0.61 sends it (fixtures/fidelity/logs/gemini-cli-0.61.0), cut down. */
const body = {
  systemInstruction: { role: 'user', parts: [{ text: 'You are Gemini CLI.' }] },
  contents: [
    { role: 'user', parts: [{ text: '<session_context>…</session_context>' }, { text: 'Print a greeting.' }] },
    {
      role: 'model',
      parts: [
        { text: 'I will.' },
        { functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'echo hi' } }, thoughtSignature: 'sig' },
      ],
    },
    { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: 'hi' } } }] },
    { role: 'model', parts: [{ text: 'thinking', thought: true }, { thoughtSignature: 'only' }, { text: 'Done.' }] },
  ],
  tools: [
    { functionDeclarations: [{ name: 'run_shell_command', description: 'Runs a command.', parametersJsonSchema: { type: 'object' } }] },
  ],
};

describe('Gemini API requests', () => {
  it('read into the common shape: roles, calls by name and canonical args, responses as their output', () => {
    const n = normalizeBody('gemini', body);
    expect(n?.system).toEqual([{ role: 'system', type: 'text', text: 'You are Gemini CLI.' }]);
    expect(n?.parts).toEqual([
      { role: 'user', type: 'text', text: '<session_context>…</session_context>\n\nPrint a greeting.' },
      { role: 'assistant', type: 'text', text: 'I will.' },
      { role: 'assistant', type: 'tool_call', id: '', name: 'run_shell_command', input: '{"command":"echo hi"}' },
      { role: 'tool', type: 'tool_result', callId: '', content: 'hi', isError: false },
      { role: 'assistant', type: 'reasoning', text: 'thinking', redacted: false },
      { role: 'assistant', type: 'text', text: 'Done.' },
    ]);
    expect(n?.tools).toEqual([{ name: 'run_shell_command', description: 'Runs a command.', schema: '{"type":"object"}' }]);
  });

  it('read into a wire view: function responses a tool item of their own', () => {
    const c = fromGemini(body);
    expect(c.items.map((i) => [i.role, i.blocks.map((b) => b.type).join(',')])).toEqual([
      ['user', 'text,text'],
      ['assistant', 'text,tool_call'],
      ['tool', 'tool_result'],
      ['assistant', 'reasoning,text'],
    ]);
    expect(c.tools).toEqual([{ name: 'run_shell_command', description: 'Runs a command.', inputSchema: { type: 'object' } }]);
  });
});
