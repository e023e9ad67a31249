import { describe, expect, it } from 'vitest';
import { userSeam } from '../../src/main/dialects/claude-user-seam';
import type { RequestComparison } from '../../src/main/fidelity/compare';
import { type WireBody, compareSaved, plantWhere } from './saved-claude';

/*
 * After `/compact`, Claude Code sends the caveat, command and stdout records (and the next one) as
 * one user message. From 2.1.97 it ends each record's last text with "\n" where the next record
 * starts with a text; 2.0.77 and 2.1.9 do not. The saved real runs (fixtures/fidelity/logs) show
 * both on the wire; the comparison rebuilds the join by the version that wrote the request's line.
 */

type Body = WireBody;

/** `scenario` of `version`, with the bodies that hold the caveat changed by `edit` when given. */
const compare = (version: string, scenario: string, edit?: (b: Body) => void): Promise<RequestComparison[]> =>
  compareSaved(
    version,
    scenario,
    edit ? plantWhere((b) => JSON.stringify(b.messages ?? []).includes('<local-command-caveat>'), edit) : undefined,
  );

/** Every text block of the wire's messages, to plant a change in the caveat's. */
function texts(b: Body): { text: string }[] {
  return b.messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as { type?: string; text: string }[]).filter((p) => p.type === 'text') : [],
  );
}

const caveat = (b: Body): { text: string } => texts(b).find((t) => t.text.startsWith('<local-command-caveat>')) as { text: string };

const SEAM = /adds a newline/;

describe('Claude Code joins the records after /compact with a newline from 2.1.97', () => {
  for (const version of ['2.1.97', '2.1.197'])
    for (const scenario of ['manual-compact', 'compact-http-500'])
      it(`${version} ${scenario}: the request after the compaction is no mismatch`, async () => {
        const rs = await compare(version, scenario);
        expect(rs.filter((r) => r.verdict === 'mismatch')).toEqual([]);
        const after = rs.at(-1) as RequestComparison;
        expect(after.verdict).toBe('unknown');
        // Unknown only for the context block and the listings, not for the join.
        expect(after.messages?.why).not.toMatch(SEAM);
      });

  it('2.1.197: the caveat sent without its newline is a mismatch', async () => {
    const rs = await compare('2.1.197', 'manual-compact', (b) => {
      const c = caveat(b);
      c.text = c.text.replace(/\n$/, '');
    });
    expect(rs.at(-1)).toMatchObject({ verdict: 'mismatch', messages: { status: 'mismatch' } });
  });

  it('2.1.9 joins without it: as recorded it is no mismatch, with a newline added it is', async () => {
    expect((await compare('2.1.9', 'manual-compact')).filter((r) => r.verdict === 'mismatch')).toEqual([]);
    const rs = await compare('2.1.9', 'manual-compact', (b) => {
      caveat(b).text += '\n';
    });
    expect(rs.at(-1)).toMatchObject({ verdict: 'mismatch' });
  });
});

describe('userSeam: by version', () => {
  it('knows the versions seen on the wire and names the ones between as unknown', () => {
    expect(userSeam('2.0.77')).toEqual({ kind: 'none' });
    expect(userSeam('2.1.9')).toEqual({ kind: 'none' });
    expect(userSeam('2.1.97')).toEqual({ kind: 'newline' });
    expect(userSeam('2.1.197')).toEqual({ kind: 'newline' });
    // Read in the published packages' code: 2.1.39 and 2.1.70 without it, 2.1.85 with it.
    expect(userSeam('2.1.39')).toEqual({ kind: 'none' });
    expect(userSeam('2.1.85')).toEqual({ kind: 'newline' });
    expect(userSeam('2.1.80')).toMatchObject({ kind: 'unknown', why: expect.stringMatching(/2\.1\.80/) as unknown });
    expect(userSeam(undefined)).toMatchObject({ kind: 'unknown' });
  });
});
