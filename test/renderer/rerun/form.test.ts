import { describe, expect, it } from 'vitest';
import type { CompactionRow, RequestRow, StrategyRow } from '../../../src/shared/api/contract';
import { CONTRACT } from '../../../src/shared/api/contract';
import { demoWindow, modelSpec, toStartInput, type ChainEntry, type RerunForm } from '../../../src/renderer/rerun/form';

const STRATEGIES: StrategyRow[] = [
  { id: 'one-shot', title: 'One-shot', source: '000', needsModel: true },
  { id: 'extractive', title: 'Extractive', source: 'baseline', needsModel: false },
];
const mock: ChainEntry = { key: 1, provider: 'mock', model: 'summarizer', baseUrl: '', window: '' };
const FORM: RerunForm = {
  targetKind: 'compaction',
  compactionId: 'cmp_01',
  request: '0',
  strategy: 'one-shot',
  chain: [mock],
  window: '2,000',
  maxOutput: '',
  repeat: '2',
  mockLatencyMs: '',
  options: {},
  extraOptions: {},
};

describe('re-run form', () => {
  it('becomes a startRerun input the contract accepts', () => {
    const r = toStartInput('s1', FORM, STRATEGIES);
    expect(r).toEqual({
      ok: true,
      value: {
        sessionId: 's1',
        target: { compaction: 'cmp_01' },
        strategy: 'one-shot',
        models: ['mock:summarizer'],
        window: 2000,
        repeat: 2,
      },
    });
    if (r.ok) expect(CONTRACT.startRerun.input.safeParse(r.value).success).toBe(true);
  });

  it('sends no models for a model-free strategy, and the mock latency only with a mock in the chain', () => {
    expect(toStartInput('s1', { ...FORM, strategy: 'extractive', mockLatencyMs: '500' }, STRATEGIES)).toMatchObject({
      ok: true,
      value: { models: [] },
    });
    const slow = toStartInput('s1', { ...FORM, mockLatencyMs: '30000' }, STRATEGIES);
    expect(slow.ok && slow.value.mock).toEqual({ latencyMs: 30000 });
    const noMock = toStartInput(
      's1',
      { ...FORM, chain: [{ ...mock, provider: 'openai', model: 'gpt-4.1' }], mockLatencyMs: '30000' },
      STRATEGIES,
    );
    expect(noMock.ok && noMock.value.mock).toBeUndefined();
  });

  it("sends the chosen strategy's options, typed, and only that strategy's", () => {
    const form: RerunForm = {
      ...FORM,
      strategy: 'extractive',
      options: { extractive: { tailRatio: '0.3', maxTokens: '1,500' }, 'one-shot': { tailRatio: '0.9' } },
      extraOptions: { extractive: 'compactionId=c9\nflag=true' },
    };
    const r = toStartInput('s1', form, STRATEGIES);
    expect(r).toMatchObject({
      ok: true,
      value: { strategy: 'extractive', options: { tailRatio: 0.3, maxTokens: 1500, compactionId: 'c9', flag: true } },
    });
    if (r.ok) expect(CONTRACT.startRerun.input.safeParse(r.value).success).toBe(true);
    // Nothing typed: no options at all (the strategy's defaults).
    expect(toStartInput('s1', { ...form, options: {}, extraOptions: {} }, STRATEGIES)).toMatchObject({
      ok: true,
      value: expect.not.objectContaining({ options: expect.anything() }),
    });
    expect(toStartInput('s1', { ...form, options: { extractive: { maxTokens: '0' } } }, STRATEGIES)).toEqual({
      ok: false,
      error: 'Options of extractive: maxTokens must be a whole number of at least 1.',
    });
  });

  it('says what is wrong, in a sentence', () => {
    expect(toStartInput('s1', { ...FORM, window: '2k' }, STRATEGIES)).toEqual({
      ok: false,
      error: 'The window must be a whole number from 1 to 100,000,000.',
    });
    expect(toStartInput('s1', { ...FORM, repeat: '101' }, STRATEGIES)).toEqual({
      ok: false,
      error: 'Repeat must be a whole number from 1 to 100.',
    });
    expect(toStartInput('s1', { ...FORM, targetKind: 'request', request: '-1' }, STRATEGIES)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/index/),
    });
    expect(toStartInput('s1', { ...FORM, compactionId: '' }, STRATEGIES)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Choose a compaction/),
    });
    expect(toStartInput('s1', { ...FORM, chain: [{ ...mock, model: ' ' }] }, STRATEGIES)).toMatchObject({
      ok: false,
      error: 'The mock entry names no model.',
    });
    expect(toStartInput('s1', { ...FORM, strategy: 'nope' }, STRATEGIES)).toEqual({ ok: false, error: 'Choose a strategy.' });
  });

  it('writes a chain entry with an endpoint or a window in the object form', () => {
    expect(modelSpec({ key: 2, provider: 'openai', model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:11434/v1', window: '8192' })).toEqual({
      ok: true,
      value: { provider: 'openai', model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:11434/v1', window: 8192 },
    });
    expect(modelSpec({ key: 2, provider: 'openai', model: 'x', baseUrl: 'file:///etc/passwd', window: '' })).toMatchObject({ ok: false });
  });

  it('suggests a demo window only when the source fits in the recent tail of the session window', () => {
    const c = { id: 'cmp_01', preTokens: 1224, startSeq: 28 } as CompactionRow;
    const req = (seq: number, window: number | null) => ({ seq, window }) as RequestRow;
    expect(demoWindow(c, [req(5, 200_000), req(40, 200_000)])).toEqual({ window: 2000, sessionWindow: 200_000, tokens: 1224 });
    expect(demoWindow(c, [req(5, 4000)])).toBeNull();
    expect(demoWindow({ ...c, preTokens: null }, [req(5, 200_000)])).toBeNull();
  });
});
