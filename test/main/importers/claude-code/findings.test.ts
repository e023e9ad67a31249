import { describe, expect, it } from 'vitest';
import { TOO_DEEP_INPUT } from '../../../../src/main/importers/claude-code/blocks';
import { FileFindings } from '../../../../src/main/importers/claude-code/findings';

interface Told {
  readonly rule: string;
  readonly message: string;
  readonly seqs: number[];
  readonly line: number;
}

function told(f: FileFindings): Told[] {
  const out: Told[] = [];
  f.report((rule, _severity, message, seqs, line) => out.push({ rule, message, seqs, line }));
  return out;
}

describe('FileFindings', () => {
  it('tells nothing when nothing was found', () => {
    expect(told(new FileFindings())).toEqual([]);
  });

  it('counts each kind where it is seen and tells it once, at its first line', () => {
    const f = new FileFindings();
    f.duplicate(7, 3);
    f.duplicate(9, 0);
    f.apiRequestUnresolved(4, 'names a message the log does not hold');
    f.apiRequestUnresolved(8, 'something else');
    f.apiRequestBadCount(5, 'keep 9 of 3');
    const t = told(f);
    expect(t.map((x) => x.rule)).toEqual(['CC_DUPLICATE_UUID', 'CC_API_REQUEST_UNRESOLVED', 'CC_API_REQUEST_BAD_COUNT']);
    expect(t[0]).toMatchObject({ line: 7 });
    expect(t[0]?.message).toContain('2 records reuse uuids already in the session (first at line 7, first written at line 3)');
    expect(t[1]).toMatchObject({ line: 4 });
    expect(t[1]?.message).toContain(
      '2 api-request records (first at line 4) could not be rebuilt (the first names a message the log does not hold)',
    );
    expect(t[2]?.message).toContain('1 api-request record (first at line 5) gives a "keep"');
  });

  it('tells one unknown-record diagnostic per type, citing at most 20 seqs', () => {
    const f = new FileFindings();
    for (let i = 0; i < 25; i++) f.unknownType('mystery', 10 + i, 100 + i);
    f.unknownType('other', 50, 7);
    const t = told(f);
    expect(t.map((x) => x.rule)).toEqual(['UNKNOWN_RECORDS', 'UNKNOWN_RECORDS']);
    expect(t[0]).toMatchObject({ line: 10 });
    expect(t[0]?.message).toContain('25 records of type "mystery"');
    expect(t[0]?.seqs).toHaveLength(20);
    expect(t[1]).toMatchObject({ seqs: [7], line: 50 });
  });

  it('tells unknown fields and content in one diagnostic at the earliest line, deep tool inputs apart', () => {
    const f = new FileFindings();
    f.unknownField('shiny', 6);
    f.block('content block "sparkle"', 3);
    f.unknownField('shiny', 9);
    f.block(TOO_DEEP_INPUT, 4);
    const t = told(f);
    expect(t.map((x) => x.rule)).toEqual(['UNKNOWN_FIELDS', 'CC_TOO_DEEP']);
    expect(t[0]).toMatchObject({ line: 3 });
    expect(t[0]?.message).toContain('field "shiny" ×2 (first at line 6); content block "sparkle" ×1 (first at line 3)');
    expect(t[1]).toMatchObject({ line: 4 });
  });

  it('names at most five lines of the main log for unlogged context', () => {
    const f = new FileFindings();
    for (let i = 1; i <= 7; i++) f.unloggedContext(20 + i, i);
    const [u] = told(f);
    expect(u).toMatchObject({ rule: 'CC_UNLOGGED_CONTEXT', line: 21 });
    expect(u?.message).toContain(
      '7 records of this file (first at line 21) are messages the main conversation held after its lines 1, 2, 3, 4, 5,',
    );
  });

  it('lets the version warning be told the first time only', () => {
    const f = new FileFindings();
    expect(f.newerVersion()).toBe(true);
    expect(f.newerVersion()).toBe(false);
  });
});
