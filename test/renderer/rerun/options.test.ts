import { describe, expect, it } from 'vitest';
import { optionFields, optionsText, parseExtra, STRATEGY_OPTIONS, strategyOptions } from '../../../src/renderer/rerun/options';
import { CLEAR_TOOLS_ID, DEFAULT_KEEP_LAST } from '../../../src/shared/strategies/baselines/clear-tools';
import { PRUNE_HEAD, PRUNE_TAIL, PRUNE_THRESHOLD } from '../../../src/shared/strategies/dsh-basic/pruner';
import { RETAIN_RATIO, THRESHOLD_RATIO } from '../../../src/shared/strategies/dsh-basic';
import { DEFAULT_OPTIONS, MAX_CONCURRENCY, parseOptions as parseLayered } from '../../../src/shared/strategies/layered/options';
import { DEFAULT_TAIL_RATIO } from '../../../src/shared/strategies/one-shot';
import {
  HARD_WATERMARK,
  OUTPUT_HEADROOM,
  SOFT_WATERMARK,
  SUMMARIZER_MAX_TOKENS,
  TAIL_KEEP,
} from '../../../src/shared/strategies/preemptive/plan';
import { COOLDOWN_TURNS, MAX_FAILURES } from '../../../src/shared/strategies/preemptive/breaker';
import { STRATEGY_IDS } from '../../../src/shared/strategies';

const field = (strategy: string, key: string) => optionFields(strategy).find((f) => f.key === key);

describe('strategy options in the re-run panel', () => {
  it('covers every strategy, with the defaults the strategies use (repeated in the renderer, so checked here)', () => {
    expect(Object.keys(STRATEGY_OPTIONS).sort()).toEqual([...STRATEGY_IDS].sort());
    expect(field(CLEAR_TOOLS_ID, 'keepLast')?.default).toBe(String(DEFAULT_KEEP_LAST));
    expect(field('one-shot', 'tailRatio')?.default).toBe(String(DEFAULT_TAIL_RATIO));
    expect(field('layered', 'concurrency')).toMatchObject({ default: String(DEFAULT_OPTIONS.concurrency), max: MAX_CONCURRENCY });
    expect(field('layered', 'audit')?.default).toBe(String(DEFAULT_OPTIONS.audit));
    expect(field('layered', 'forceMapReduce')?.default).toBe(String(DEFAULT_OPTIONS.forceMapReduce));
    expect(
      ['thresholdRatio', 'retainRatio', 'pruneThreshold', 'pruneHead', 'pruneTail'].map((k) => field('dsh-basic', k)?.default),
    ).toEqual([THRESHOLD_RATIO, RETAIN_RATIO, PRUNE_THRESHOLD, PRUNE_HEAD, PRUNE_TAIL].map(String));
    expect(
      ['softWatermark', 'hardWatermark', 'tailKeep', 'outputHeadroom', 'summarizerMaxTokens', 'maxFailures', 'cooldownTurns'].map(
        (k) => field('preemptive', k)?.default,
      ),
    ).toEqual(
      [SOFT_WATERMARK, HARD_WATERMARK, TAIL_KEEP, OUTPUT_HEADROOM, SUMMARIZER_MAX_TOKENS, MAX_FAILURES, COOLDOWN_TURNS].map(String),
    );
  });

  it('what the layered fields accept, layered accepts', () => {
    const r = strategyOptions('layered', { concurrency: '1', segmentTokens: '2,000', audit: 'false', forceMapReduce: 'true' }, '');
    expect(r).toEqual({ ok: true, value: { concurrency: 1, segmentTokens: 2000, audit: false, forceMapReduce: true } });
    if (r.ok)
      expect(parseLayered(r.value)).toMatchObject({
        ok: true,
        options: { concurrency: 1, segmentTokens: 2000, audit: false, forceMapReduce: true },
      });
    expect(strategyOptions('layered', { concurrency: '5' }, '')).toEqual({
      ok: false,
      error: 'concurrency must be a whole number from 1 to 4.',
    });
  });

  it('checks whole numbers, shares of the window and yes/no before sending', () => {
    expect(strategyOptions('clear-tools', { keepLast: '1' }, '')).toEqual({ ok: true, value: { keepLast: 1 } });
    expect(strategyOptions('clear-tools', { keepLast: '0' }, '')).toEqual({ ok: true, value: { keepLast: 0 } });
    expect(strategyOptions('clear-tools', { keepLast: '-1' }, '')).toMatchObject({
      ok: false,
      error: 'keepLast must be a whole number of at least 0.',
    });
    expect(strategyOptions('clear-tools', { keepLast: '1.5' }, '')).toMatchObject({ ok: false });
    expect(strategyOptions('one-shot', { tailRatio: '.25' }, '')).toEqual({ ok: true, value: { tailRatio: 0.25 } });
    expect(strategyOptions('one-shot', { tailRatio: '1.2' }, '')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^tailRatio must be a share of the window, from 0 up to 1/),
    });
    expect(strategyOptions('dsh-basic', { thresholdRatio: '0' }, '')).toMatchObject({ ok: false, error: expect.stringMatching(/above 0/) });
    expect(strategyOptions('dsh-basic', { force: 'true', prune: '' }, '')).toEqual({ ok: true, value: { force: true } });
    expect(strategyOptions('truncate', {}, '')).toEqual({ ok: true, value: {} });
  });

  it('sends other options as key=value lines, JSON when it parses, refusing what is not an option name', () => {
    expect(parseExtra('keepFirst=2\n\n note = hello world \nlist=[1,2]', new Set())).toEqual({
      ok: true,
      value: { keepFirst: 2, note: 'hello world', list: [1, 2] },
    });
    expect(parseExtra('keepLast=2', new Set(['keepLast']))).toEqual({ ok: false, error: 'keepLast has its own field above.' });
    expect(parseExtra('a=1\na=2', new Set())).toEqual({ ok: false, error: 'a is given twice.' });
    expect(parseExtra('just words', new Set())).toMatchObject({ ok: false, error: expect.stringMatching(/one key=value a line/) });
    const proto = parseExtra('__proto__={"polluted":true}', new Set());
    expect(proto).toMatchObject({ ok: false, error: expect.stringMatching(/not an option name/) });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('writes options as the job and run rows show them', () => {
    expect(optionsText({ keepLast: 1, audit: false, note: 'x' })).toBe('keepLast=1, audit=false, note=x');
    expect(optionsText({})).toBe('');
  });
});
