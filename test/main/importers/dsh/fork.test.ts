import { describe, expect, it } from 'vitest';
import { SAMPLES, errors, importFixture } from './helpers';

describe('subagent fork', () => {
  const child = importFixture(SAMPLES.forkChild);
  const parent = importFixture(SAMPLES.forkParent);

  it('the child names its parent and marks where the inherited prefix ends', () => {
    expect(errors(child.diagnostics)).toEqual([]);
    expect(child.of('session')[0]).toMatchObject({
      id: 'ada8966c-9fa3-441b-8721-37ff1e795e6a',
      harness: 'dsh',
      parent: { session: '96cf59c9-b347-48b9-b234-a5200913ad05', origin: 'subagent' },
    });
    const seams = child.of('lifecycle').filter((e) => e.kind === 'lifecycle' && e.boundary === 'end-seed');
    expect(seams).toEqual([expect.objectContaining({ kind: 'lifecycle', boundary: 'end-seed', line: 22 })]);
    // seedLength 42 = the DSH seq of session/end-seed once the packed reasoning row is expanded.
    expect(child.diagnostics.filter((d) => d.rule === 'DSH_SEED_LENGTH')).toEqual([]);
  });

  it('the canonical events before end-seed are the parent’s first canonical events', () => {
    const cut = child.of('lifecycle').find((e) => e.kind === 'lifecycle' && e.boundary === 'end-seed')?.seq ?? 0;
    const strip = (e: object) => {
      const { seq: _seq, line: _line, ...rest } = e as Record<string, unknown>;
      return rest;
    };
    const inherited = child.events.slice(1, cut).map(strip);
    expect(inherited.length).toBeGreaterThan(40);
    expect(parent.events.slice(1, cut).map(strip)).toEqual(inherited);
    expect(parent.of('session')[0]?.parent).toBeUndefined();
  });
});
