import { describe, expect, it } from 'vitest';
import { expandCells } from '../../../src/shared/eval/cells';
import { EVAL_FORMAT, EVAL_VERSION, cellRef, parseEvalLine } from '../../../src/shared/eval/results';
import { parseSpec } from '../../../src/shared/eval/spec';
import { runRecord, score } from './helpers';

describe('results lines', () => {
  const spec = parseSpec(
    { name: 'n', traces: [{ path: 't.jsonl' }], strategies: [{ id: 'one-shot', label: 'os' }], models: ['mock:m'] },
    's.yaml',
  );
  if (!spec.ok) throw new Error(spec.error);
  const cells = expandCells(spec.value, [{ trace: 0, path: 't.jsonl', targets: [{ request: 4 }] }], () => ({ needsModel: true }));
  if (!cells.ok) throw new Error(cells.error);
  const cell = cells.value[0]!;

  it('record the cell, the run, its score and the facts fingerprint, and read back', () => {
    const line = {
      format: EVAL_FORMAT,
      v: EVAL_VERSION,
      spec: 'n',
      cell: cellRef(cell),
      run: runRecord([]),
      score: score({ recall: { overall: 0.5 } }),
      facts: 'abcd1234',
      judge: null,
    };
    expect(line.cell).toEqual({
      key: cell.key,
      trace: 't.jsonl',
      target: { request: 4 },
      strategy: 'os',
      strategyId: 'one-shot',
      model: 'mock:m',
      fault: null,
      repeat: 0,
      of: 1,
    });
    const back = parseEvalLine(JSON.parse(JSON.stringify(line)), 'results.jsonl:1');
    expect(back).toEqual({ ok: true, value: line });
  });

  it('say which line and field is wrong', () => {
    const bad = {
      format: EVAL_FORMAT,
      v: EVAL_VERSION,
      spec: 'n',
      cell: cellRef(cell),
      run: runRecord([]),
      score: { ...score(), recall: { overall: 2 } },
      facts: null,
      judge: null,
    };
    const r = parseEvalLine(bad, 'results.jsonl:3');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^results\.jsonl:3: score\.recall\.overall: /m);
  });
});
