import { describe, expect, it } from 'vitest';
import { recoversParallelResults } from '../../src/main/dialects/claude-resume';
import type { RequestComparison } from '../../src/main/fidelity/compare';
import { type WireBody, compareSaved, plant } from './saved-claude';

/*
 * tools-resume: two parallel Bash calls, then a third turn after `--resume`. Each result is its own
 * record hanging off the line of its call; the turn after hangs off the result written last. After
 * the reload, 2.0.77 and 2.1.9 send only the call answered last and its result (the parentUuid walk
 * never reaches the other result, and a call without a result is left out); 2.1.97 sends both. The
 * log does not say whether the client reloaded, so for the older versions the other call and its
 * result are unknown (sent or not) in the requests after that turn.
 */

/** tools-resume of `version`, with request `edit.seq`'s body changed by `edit.f` when given. */
const compare = (version: string, edit?: { seq: number; f: (b: WireBody) => void }): Promise<RequestComparison[]> =>
  compareSaved(version, 'tools-resume', edit ? plant(edit.seq, edit.f) : undefined);

const onMain = (rs: readonly RequestComparison[], index: number): RequestComparison =>
  rs.find((r) => r.view?.branch === 'main' && r.view.index === index) as RequestComparison;

const RELOAD = /after a reload/;

/** The wire's last request as sent after `--resume`, and the log's request it is (the fourth turn's). */
const TURN3 = { '2.0.77': 18, '2.1.9': 9 } as const;

describe('Claude Code 2.0.77 and 2.1.9: parallel calls after --resume', () => {
  for (const version of ['2.0.77', '2.1.9'] as const) {
    it(`${version}: the request after the reload is unknown, not a mismatch`, async () => {
      const rs = await compare(version);
      expect(rs.filter((r) => r.verdict === 'mismatch')).toEqual([]);
      const turn3 = rs.find((r) => r.seq === TURN3[version]) as RequestComparison;
      expect(turn3).toMatchObject({ verdict: 'unknown', view: { branch: 'main', index: 4 } });
      expect(turn3.messages?.why).toMatch(RELOAD);
      // The request that answers the two results is sent by the same process: both are known.
      expect(onMain(rs, 3).messages?.why).not.toMatch(RELOAD);
    });

    it(`${version}: a changed result of the call that stays is still a mismatch`, async () => {
      const rs = await compare(version, {
        seq: TURN3[version],
        f: (b) => {
          for (const m of b.messages)
            if (Array.isArray(m.content))
              for (const p of m.content as { type: string; content?: unknown }[])
                if (p.type === 'tool_result' && p.content === 'two') p.content = 'three';
        },
      });
      expect(rs.find((r) => r.seq === TURN3[version])).toMatchObject({ verdict: 'mismatch' });
    });
  }
});

describe('a client that repairs the pairing instead', () => {
  it('2.1.9 sent with the first call and an error result made up for it is unknown too', async () => {
    const rs = await compare('2.1.9', {
      seq: TURN3['2.1.9'],
      f: (b) => {
        const at = b.messages.findIndex((m) => JSON.stringify(m.content).includes('toolu_mock_3_1'));
        const call = {
          type: 'tool_use',
          id: 'toolu_mock_3_0',
          name: 'Bash',
          input: { command: "printf 'one\\n'", description: 'Print one' },
        };
        const error = {
          type: 'tool_result',
          tool_use_id: 'toolu_mock_3_0',
          content: '[Tool result missing due to internal error]',
          is_error: true,
        };
        (b.messages[at]?.content as unknown[]).unshift(call);
        (b.messages[at + 1]?.content as unknown[]).unshift(error);
      },
    });
    expect(rs.find((r) => r.seq === TURN3['2.1.9'])).toMatchObject({ verdict: 'unknown' });
  });
});

describe('Claude Code 2.1.97 puts the other result back after a reload', () => {
  it('nothing is unknown for the reload, and a request without the first call is a mismatch', async () => {
    expect(recoversParallelResults('2.1.97')).toBe(true);
    expect(recoversParallelResults('2.1.9')).toBe(false);
    expect(recoversParallelResults('2.1.50')).toBe(false);
    const rs = await compare('2.1.97');
    for (const r of rs) expect(r.messages?.why ?? '').not.toMatch(RELOAD);
    const dropped = await compare('2.1.97', {
      seq: 7,
      f: (b) => {
        for (const m of b.messages)
          if (Array.isArray(m.content))
            m.content = (m.content as { type: string; id?: string; tool_use_id?: string }[]).filter(
              (p) => p.id !== 'toolu_mock_4_0' && p.tool_use_id !== 'toolu_mock_4_0',
            );
      },
    });
    expect(dropped.find((r) => r.seq === 7)).toMatchObject({ verdict: 'mismatch' });
  });
});
