import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { parseSpec, specWarnings } from '../../../src/shared/eval/spec';

const minimal = { name: 'smoke', traces: [{ path: 'traces/*.jsonl' }], strategies: [{ id: 'truncate' }] };

describe('parseSpec', () => {
  it('fills the defaults', () => {
    const r = parseSpec(minimal, 'spec.yaml');
    if (!r.ok) throw new Error(r.error);
    expect(r.value).toMatchObject({
      repeats: 1,
      concurrency: 1,
      seed: 0,
      limits: {},
      thresholds: {},
      faults: [],
      models: [{ label: 'none', pinned: null }],
    });
    expect(r.value.traces[0]?.targets).toBe('compactions');
    expect(r.value.strategies[0]?.options).toEqual({});
  });

  it('takes models as "none", PROVIDER:MODEL or pinned objects with a label', () => {
    const r = parseSpec(
      {
        ...minimal,
        models: [
          'none',
          'openai:llama3.1:8b',
          { provider: 'anthropic', model: 'claude-x', label: 'claude', prices: { input: 3, output: 15 } },
        ],
      },
      'spec.yaml',
    );
    if (!r.ok) throw new Error(r.error);
    expect(r.value.models.map((m) => m.label)).toEqual(['none', 'openai:llama3.1:8b', 'claude']);
    expect(r.value.models[1]?.pinned).toMatchObject({ provider: 'openai', model: 'llama3.1:8b' });
    expect(r.value.models[2]?.pinned?.prices).toEqual({ input: 3, output: 15 });
  });

  it('names the file and the field of each problem', () => {
    const r = parseSpec(
      {
        name: '',
        traces: [{ path: 'a.jsonl', targets: [{ compaction: 'c1' }, { request: -1 }] }],
        strategies: [{ id: 'one-shot' }, { id: 'one-shot', options: { tailTokens: 5 } }],
        models: ['bogus:model', { provider: 'openai', model: 'gpt', tempo: 1 }, 'mock:a', 'mock:a'],
        repeats: 0,
        thresholds: { minRecall: 1.5 },
        faults: [{ name: 'x y', steps: [] }],
        judge: { model: 'none' },
      },
      'evals/main.yaml',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const text = r.error;
    for (const field of [
      'name',
      'traces[0].targets[1]',
      'models[0]',
      'models[1]',
      'repeats',
      'thresholds.minRecall',
      'faults[0].name',
      'faults[0].steps',
    ]) {
      expect(text).toContain(`evals/main.yaml: ${field}`);
    }
    expect(text).toMatch(/"bogus:model" is not "none" or PROVIDER:MODEL/);
  });

  it('refuses ambiguous labels and faults on a model that is not a mock', () => {
    const r = parseSpec(
      {
        ...minimal,
        strategies: [{ id: 'one-shot' }, { id: 'one-shot', options: { tailTokens: 5 } }],
        models: ['mock:a', 'openai:gpt', 'mock:a'],
        faults: [{ name: 'f', steps: [{ fault: { kind: 'overloaded' } }], models: ['openai:gpt'] }],
        judge: { model: 'none' },
      },
      's.yaml',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toContain('s.yaml: strategies[1].label: strategies[0] is also labelled "one-shot"');
    expect(r.error).toContain('s.yaml: models[2]: models[0] is also labelled "mock:a"');
    expect(r.error).toContain('s.yaml: faults[0].models[0]: "openai:gpt" is not a mock model');
    expect(r.error).toContain('s.yaml: judge.model: the judge needs a model');
  });

  it('warns about what is valid but probably not meant', () => {
    const r = parseSpec(
      {
        ...minimal,
        traces: [{ path: 'a.jsonl' }],
        models: ['openai:gpt'],
        limits: { costUsd: 5 },
        faults: [{ name: 'f', steps: [{ fault: { kind: 'overloaded' } }] }],
        thresholds: { appliesTo: { strategies: ['nope'] } },
      },
      's.yaml',
    );
    if (!r.ok) throw new Error(r.error);
    const w = specWarnings(r.value).join('\n');
    expect(w).toMatch(/no model of the spec is a mock/);
    expect(w).toMatch(/limits\.costUsd cannot be enforced for openai:gpt/);
    expect(w).toMatch(/thresholds\.appliesTo names strategy "nope"/);
    expect(w).toMatch(/no facts file/);
  });

  for (const name of ['claude-code', 'dsh']) {
    it(`accepts the fixture spec fixtures/eval/${name}.spec.yaml`, () => {
      const path = `fixtures/eval/${name}.spec.yaml`;
      const r = parseSpec(YAML.parse(readFileSync(path, 'utf8')), path);
      if (!r.ok) throw new Error(r.error);
      expect(specWarnings(r.value)).toEqual([]);
    });
  }
});
