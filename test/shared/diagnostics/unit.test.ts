import { describe, expect, it } from 'vitest';
import { RULES, diagnose, diagnoseSteps, ruleById } from '../../../src/shared/diagnostics';
import { INTERNAL_RULE_ERROR, MAX_FINDINGS_PER_RULE, buildContext, runRulesSteps } from '../../../src/shared/diagnostics/runner';
import { runToEnd } from '../../../src/shared/steps';
import { ruleTextSeqs } from '../../../src/shared/diagnostics/hydrate';
import { type Rule } from '../../../src/shared/diagnostics/types';
import type { CanonicalEventInput } from '../../../src/shared/model/event';
import { firstAfter, lastBefore } from '../../../src/shared/seq-search';
import { replay } from '../../../src/shared/replay/fold';
import { assistant, call, checkpoint, log, quarterChars, result, run, text, user } from './helpers';

const runRules = (ctx: Parameters<typeof runRulesSteps>[0], options?: Parameters<typeof runRulesSteps>[1]) =>
  runToEnd(runRulesSteps(ctx, options));

/** Cases the fixtures do not show one by one: guards, labels, severities, and the runner itself. */

const STOP = { raw: 'end_turn', reason: 'stop' as const };
const LENGTH = { raw: 'max_tokens', reason: 'length' as const };

/** session, header, u1, a1 (call c1), t1, a2 — seqs 0..5. */
const base = (): CanonicalEventInput[] => [
  { kind: 'session', id: 's' },
  { kind: 'header', system: text('sys'), route: { model: 'm', window: 100_000 } },
  user('u1'),
  call('a1', 'c1'),
  result('t1', 'c1'),
  assistant('a2'),
];

describe('the catalog', () => {
  it('has unique UPPER_SNAKE ids, severities and a title for every rule', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of RULES) {
      expect(r.id).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(r.severities.length).toBeGreaterThan(0);
      expect(r.title.length).toBeGreaterThan(10);
      expect(ruleById(r.id)).toBe(r);
    }
  });
});

describe('the runner', () => {
  const ctx = () => buildContext({ events: log(base()), state: replay(log(base())) });

  it('turns a throwing rule into one INTERNAL_RULE_ERROR warning and runs the others', () => {
    const boom: Rule = {
      id: 'BOOM',
      severities: ['error'],
      title: 'always throws, for the test',
      origins: ['users'],
      run: () => {
        throw new Error('kaboom');
      },
    };
    const ok: Rule = {
      id: 'OK_RULE',
      severities: ['info'],
      title: 'always finds one thing',
      origins: ['users'],
      run: () => [{ rule: 'OK_RULE', severity: 'info', message: 'Found.', file: null, line: null, seqs: [2] }],
    };
    const out = runRules(ctx(), { rules: [boom, ok] });
    expect(out.map((d) => d.rule)).toEqual(['OK_RULE', INTERNAL_RULE_ERROR]);
    expect(out[1]?.message).toMatch(/BOOM failed.*kaboom/);
    expect(out[1]?.severity).toBe('warning');
  });

  it("keeps findings well formed: the rule's id, one of its severities, seqs that exist", () => {
    const sloppy: Rule = {
      id: 'SLOPPY',
      severities: ['warning'],
      title: 'returns odd findings, for the test',
      origins: ['users'],
      run: () => [{ rule: 'OTHER', severity: 'error', message: 'x', file: null, line: null, seqs: [1, 999, -1] }],
    };
    const bad: Rule = {
      id: 'BAD',
      severities: ['warning'],
      title: 'returns no array, for the test',
      origins: ['users'],
      run: () => 42 as unknown as [],
    };
    const out = runRules(ctx(), { rules: [sloppy, bad] });
    expect(out[0]).toMatchObject({ rule: 'SLOPPY', severity: 'warning', seqs: [1] });
    expect(out[1]?.rule).toBe(INTERNAL_RULE_ERROR);
  });

  it('caps the findings of one rule and sums up the rest', () => {
    const many: Rule = {
      id: 'MANY',
      severities: ['warning'],
      title: 'finds too much, for the test',
      origins: ['users'],
      run: () =>
        Array.from({ length: MAX_FINDINGS_PER_RULE + 7 }, (_, i) => ({
          rule: 'MANY',
          severity: 'warning' as const,
          message: `n${i}.`,
          file: null,
          line: null,
          seqs: [i % 6],
        })),
    };
    const out = runRules(ctx(), { rules: [many] });
    expect(out).toHaveLength(MAX_FINDINGS_PER_RULE + 1);
    expect(out.some((d) => /and 7 more findings of MANY/.test(d.message))).toBe(true);
  });

  it('runs only the rules asked for, and filters by severity', () => {
    const bodies = [
      ...base(),
      { kind: 'compaction/start', id: 'x', trigger: 'auto' } as CanonicalEventInput,
      { kind: 'lifecycle', boundary: 'process-start' } as CanonicalEventInput,
      { kind: 'unknown', type: 'y' } as CanonicalEventInput,
    ];
    expect(
      run(bodies)
        .findings.map((d) => d.rule)
        .sort(),
    ).toEqual(['ORPHAN_COMPACTION_START', 'UNKNOWN_RECORDS']);
    expect(run(bodies, { only: ['UNKNOWN_RECORDS'] }).findings.map((d) => d.rule)).toEqual(['UNKNOWN_RECORDS']);
    expect(run(bodies, { minSeverity: 'warning' }).findings.map((d) => d.rule)).toEqual(['UNKNOWN_RECORDS']);
  });

  it('runs in steps: the shared facts, then one rule a step, with the findings diagnose gives', () => {
    const bodies = [
      ...base(),
      { kind: 'compaction/start', id: 'x', trigger: 'auto' } as CanonicalEventInput,
      { kind: 'unknown', type: 'y' } as CanonicalEventInput,
    ];
    const events = log(bodies);
    const input = { events, state: replay(events), format: 'palimpsest' };
    const steps = diagnoseSteps(input);
    const seen: number[] = [];
    let r = steps.next();
    while (!r.done) {
      expect(r.value.total).toBe(RULES.length);
      seen.push(r.value.done);
      r = steps.next();
    }
    expect(seen).toEqual([0, ...Array.from({ length: RULES.length - 1 }, (_, i) => i + 1)]);
    expect(r.value).toEqual(diagnose(input));
    expect(r.value.map((d) => d.rule).sort()).toEqual(['ORPHAN_COMPACTION_START', 'UNKNOWN_RECORDS']);
    // Some rules only: no step for the shared facts.
    const some = diagnoseSteps(input, { only: ['UNKNOWN_RECORDS', 'ORPHAN_COMPACTION_START'] });
    const counts: number[] = [];
    for (let s = some.next(); !s.done; s = some.next()) counts.push(s.value.done);
    expect(counts).toEqual([1]);
  });

  it('asks for the full text of elided summaries and checkpoints only', () => {
    const events = log([
      ...base(),
      { kind: 'compaction/summary', id: 'k', summary: [{ type: 'text', text: 'preview', elided: 900 }] },
      { kind: 'compaction/summary', id: 'k', summary: text('short') },
      checkpoint('k1', 'k', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }),
    ]);
    expect(ruleTextSeqs(events, replay(events))).toEqual([6]);
  });
});

describe('PAIR_SPLIT', () => {
  it('reports an unanswered call that crosses the cut and is answered after it', () => {
    const r = run(
      [
        { kind: 'session', id: 's' },
        user('u1'),
        call('a1', 'c1'),
        { kind: 'compaction/start', id: 'k', source: ['u1', 'a1'] },
        checkpoint('k1', 'k', ['u1', 'a1'], { op: 'replace', from: 'u1', to: 'a1' }, [3, 1, 2]),
        { kind: 'compaction/end', id: 'k', outcome: 'committed' },
        result('t1', 'c1'),
      ],
      { only: ['PAIR_SPLIT'] },
    );
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]?.message).toMatch(/before it was answered/);
    expect(r.findings[0]?.seqs[0]).toBe(4);
  });

  it('reports a hidden tool result whose call stays in view, outside any compaction', () => {
    const r = run([...base(), { kind: 'drop', items: ['t1'], reason: 'hidden' }], { only: ['PAIR_SPLIT'] });
    expect(r.findings[0]?.message).toMatch(/^The drop at seq 6 \(hidden\) took the result of tool call c1/);
  });

  it('reports a source range that cuts a unit even when nothing is committed', () => {
    const r = run(
      [...base(), { kind: 'compaction/start', id: 'k', source: ['u1', 'a1'] }, { kind: 'compaction/end', id: 'k', outcome: 'rejected' }],
      { only: ['PAIR_SPLIT'] },
    );
    expect(r.findings[0]?.message).toMatch(/source range of compaction k includes the tool call c1 \(item a1\) but not its result "t1"/);
  });
});

describe('PENDING_USER_SUMMARISED', () => {
  // A /model run after the answer, as Claude Code logs it: the command's echo and its output
  // follow the caveat, then the compaction summarises them with the answered history.
  const COMMAND =
    '<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>';
  const OUTPUT = '<local-command-stdout>Set model to claude-opus-4-7</local-command-stdout>';
  const summarised = (last: CanonicalEventInput[]): CanonicalEventInput[] => [
    { kind: 'session', id: 's' },
    user('u1'),
    assistant('a1'),
    ...last,
    { kind: 'compaction/start', id: 'k', source: ['u1', 'a1', 'u2', 'u3'] },
    checkpoint('k1', 'k', ['u1', 'a1', 'u2', 'u3'], { op: 'replace', from: 'u1', to: 'u3' }, [5, 1, 2, 3, 4]),
    { kind: 'compaction/end', id: 'k', outcome: 'committed' },
  ];

  it("a local command's echo and output summarised after the answer are no pending prompt", () => {
    const r = run(summarised([user('u2', COMMAND), user('u3', OUTPUT)]), { only: ['PENDING_USER_SUMMARISED'] });
    expect(r.findings).toEqual([]);
  });

  it('a typed prompt summarised after the answer is', () => {
    const r = run(summarised([user('u2', COMMAND), user('u3', 'Now sort the rows by date.')]), { only: ['PENDING_USER_SUMMARISED'] });
    expect(r.findings.map((d) => d.message)).toEqual([expect.stringMatching(/summarised 1 user message nobody had answered yet \("u3"\)/)]);
  });
});

describe('SYSTEM_HEAD_COMPACTED', () => {
  it('says nothing when a recorded system prompt travels in the envelope (a developer item at position 0 is not the head)', () => {
    const bodies: CanonicalEventInput[] = [
      { kind: 'session', id: 's' },
      { kind: 'header', system: text('base instructions') },
      { kind: 'item', item: { id: 'dev', role: 'system', blocks: text('developer message') } },
      user('u1'),
      checkpoint('k1', 'k', ['dev', 'u1'], { op: 'replace', from: 'dev', to: 'u1' }),
    ];
    expect(run(bodies, { only: ['SYSTEM_HEAD_COMPACTED'] }).findings).toEqual([]);
    const inSurface = bodies.map((b) => (b.kind === 'header' ? { ...b, system: [] } : b));
    expect(run(inSurface, { only: ['SYSTEM_HEAD_COMPACTED'] }).findings).toHaveLength(1);
  });
});

describe('INCOMPLETE_SUMMARY_ACCEPTED', () => {
  const bracket = (finish: typeof STOP | typeof LENGTH | null, withResponse = true): CanonicalEventInput[] => [
    ...base(),
    { kind: 'compaction/start', id: 'k', source: ['u1', 'a1', 't1'] },
    { kind: 'request', id: 'rq', purpose: 'compaction', compactionId: 'k', input: { items: ['u1'], instruction: null } },
    ...(withResponse
      ? ([
          finish
            ? { kind: 'response', request: 'rq', finish, usage: { output: 5 } }
            : { kind: 'response', request: 'rq', usage: { output: 5 } },
        ] as CanonicalEventInput[])
      : []),
    { kind: 'compaction/summary', id: 'k', summary: text('s'), request: 'rq' },
    checkpoint('k1', 'k', ['u1', 'a1', 't1'], { op: 'replace', from: 'u1', to: 't1' }),
    { kind: 'compaction/end', id: 'k', outcome: 'committed' },
  ];

  it('in a Palimpsest log, a response without finish is a missing termination signal', () => {
    const r = run(bracket(null), { only: ['INCOMPLETE_SUMMARY_ACCEPTED'] });
    expect(r.findings[0]?.message).toMatch(/carries no finish reason/);
  });

  it('says nothing when the harness never logs summarizer finish reasons (DSH, Rind)', () => {
    expect(run(bracket(null), { only: ['INCOMPLETE_SUMMARY_ACCEPTED'], format: 'dsh' }).findings).toEqual([]);
    expect(run(bracket(null, false), { only: ['INCOMPLETE_SUMMARY_ACCEPTED'] }).findings).toEqual([]);
  });

  it('names the ceiling when the summary stopped at its output limit', () => {
    const bodies = bracket(LENGTH);
    const withRoute = bodies.map((b) => (b.kind === 'request' ? { ...b, route: { maxOutput: 2_000 } } : b));
    expect(run(withRoute, { only: ['INCOMPLETE_SUMMARY_ACCEPTED'] }).findings[0]?.message).toMatch(/output ceiling \(2,000 tokens\)/);
    expect(run(bracket(STOP), { only: ['INCOMPLETE_SUMMARY_ACCEPTED'] }).findings).toEqual([]);
  });

  it('reports a map accepted from a truncated response', () => {
    const r = run(
      [
        ...base(),
        { kind: 'compaction/start', id: 'k' },
        { kind: 'mapreduce/map', compactionId: 'k', ordinal: 0, status: 'accepted', finish: LENGTH },
      ],
      { only: ['INCOMPLETE_SUMMARY_ACCEPTED'] },
    );
    expect(r.findings[0]?.message).toMatch(/accepted map 0/);
  });
});

describe('EMPTY_SUMMARY', () => {
  const commit = (summary: string, elided?: number): CanonicalEventInput[] => [
    ...base(),
    { kind: 'compaction/start', id: 'k', source: ['u1', 'a1', 't1'] },
    {
      kind: 'compaction/summary',
      id: 'k',
      summary: [elided ? { type: 'text', text: summary, elided } : { type: 'text', text: summary }],
      finish: STOP,
    },
    checkpoint('k1', 'k', ['u1', 'a1', 't1'], { op: 'replace', from: 'u1', to: 't1' }),
    { kind: 'compaction/end', id: 'k', outcome: 'committed' },
  ];
  const only = { only: ['EMPTY_SUMMARY'] };

  it('reports JSON cut off mid-object and sections repeated by concatenated retries', () => {
    expect(run(commit('{"session_intent":"x","files_touched":["a'), only).findings[0]?.message).toMatch(/not valid JSON/);
    expect(run(commit('## Objective\nA\n## Objective\nA\n## Objective\nA'), only).findings[0]?.message).toMatch(
      /repeats the section "## Objective" 3 times/,
    );
    expect(run(commit('## Objective\nA\n## Next\nB'), only).findings).toEqual([]);
  });

  it('judges a long summary only on its full text', () => {
    const bodies = commit('## Objective\nA', 5_000);
    expect(run(bodies, only).findings).toEqual([]);
    const events = log(bodies);
    const full = new Map([[7, text('## Objective\nA\n## Objective\nB')]]);
    const ds = diagnose({ events, state: replay(events), format: 'palimpsest', fullBlocks: full }, only);
    expect(ds).toHaveLength(1);
  });

  it('warns when the load-bearing fields are empty after a long history', () => {
    const many: CanonicalEventInput[] = [{ kind: 'session', id: 's' }];
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      many.push(user(`u${i}`));
      ids.push(`u${i}`);
    }
    many.push({ kind: 'compaction/start', id: 'k', source: ids });
    many.push({
      kind: 'compaction/summary',
      id: 'k',
      summary: text('{"session_intent":"x","files_touched":[],"decisions":[],"pending_questions":[],"next_steps":[]}'),
      finish: STOP,
    });
    many.push(checkpoint('k1', 'k', ids, { op: 'replace', from: 'u0', to: 'u23' }));
    const r = run(many, only);
    expect(r.findings[0]).toMatchObject({ severity: 'warning' });
  });
});

describe('SUMMARY_NOT_SMALLER', () => {
  it('counts characters when the log has no token counts, and says so; an encrypted summary is not compared', () => {
    const bodies = (summary: CanonicalEventInput) => [
      ...base(),
      { kind: 'compaction/start', id: 'k', source: ['u1'] } as CanonicalEventInput,
      summary,
      checkpoint('k1', 'k', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }),
    ];
    const r = run(bodies({ kind: 'compaction/summary', id: 'k', summary: text('x'.repeat(200)), finish: STOP }), {
      only: ['SUMMARY_NOT_SMALLER'],
    });
    expect(r.findings[0]?.message).toMatch(/200 characters \(counted here/);
    expect(
      run(bodies({ kind: 'compaction/summary', id: 'k', summary: [{ type: 'opaque', label: 'enc', chars: 9_000 }], finish: STOP }), {
        only: ['SUMMARY_NOT_SMALLER'],
      }).findings,
    ).toEqual([]);
  });
});

describe('NO_PROVENANCE', () => {
  it('is an error without sources, a warning for items that were already off the view', () => {
    const noSources = run([...base(), checkpoint('k1', 'k', ['u1'], { op: 'replace', from: 'u1', to: 'u1' })], { only: ['NO_PROVENANCE'] });
    expect(noSources.findings[0]).toMatchObject({ severity: 'error' });
    const stale = run(
      [
        ...base(),
        { kind: 'drop', items: ['a2'], reason: 'hidden' },
        checkpoint('k1', 'k', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }, [2, 5]),
      ],
      { only: ['NO_PROVENANCE'] },
    );
    expect(stale.findings.map((d) => d.severity)).toEqual(['warning']);
    expect(stale.findings[0]?.message).toMatch(/already off the view/);
  });
});

describe('token-based rules', () => {
  it('RAW_TAIL_VIOLATED measures a token reserve only with an estimator', () => {
    const bodies: CanonicalEventInput[] = [
      { kind: 'session', id: 's' },
      user('u1', 'x'.repeat(400)),
      assistant('a1', 'y'.repeat(400)),
      user('u2', 'z'.repeat(40)),
      { kind: 'compaction/start', id: 'k', trigger: 'auto', source: ['u1', 'a1'], policy: { window: 10_000, rawTailTokens: 1_000 } },
      checkpoint('k1', 'k', ['u1', 'a1'], { op: 'replace', from: 'u1', to: 'a1' }, [4, 1, 2]),
      { kind: 'compaction/end', id: 'k', outcome: 'committed' },
    ];
    expect(run(bodies, { only: ['RAW_TAIL_VIOLATED'] }).findings).toEqual([]);
    const r = run(bodies, { only: ['RAW_TAIL_VIOLATED'], estimate: quarterChars });
    expect(r.findings[0]?.message).toMatch(/raw tail of about 10 tokens \(local estimate\).*reserves 1,000 tokens/);
  });

  it('COMPACTION_GREW_CONTEXT compares like with like: reported with reported, estimates with estimates', () => {
    const bodies: CanonicalEventInput[] = [
      { kind: 'session', id: 's' },
      user('u1', 'x'.repeat(40)),
      { kind: 'request', id: 'r1' },
      assistant('a1', 'ok'),
      { kind: 'compaction/start', id: 'k', source: ['u1'] },
      checkpoint('k1', 'k', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }, [4, 1], 'y'.repeat(400)),
      { kind: 'compaction/end', id: 'k', outcome: 'committed' },
      { kind: 'request', id: 'r2' },
    ];
    expect(run(bodies, { only: ['COMPACTION_GREW_CONTEXT'] }).findings).toEqual([]);
    expect(run(bodies, { only: ['COMPACTION_GREW_CONTEXT'], estimate: quarterChars }).findings[0]?.message).toMatch(/local estimate/);
  });

  it('TRIGGER_MISSED is info when an earlier failure in the same turn deferred the attempts', () => {
    const ask = (id: string, n: number): CanonicalEventInput[] => [
      { kind: 'request', id },
      assistant(`a-${id}`),
      { kind: 'response', request: id, usage: { input: n } },
    ];
    const bodies: CanonicalEventInput[] = [
      { kind: 'session', id: 's' },
      user('u1'),
      { kind: 'compaction/start', id: 'k', trigger: 'auto', policy: { triggerTokens: 1_000 } },
      { kind: 'compaction/end', id: 'k', outcome: 'failed' },
      ...ask('r1', 500),
      ...ask('r2', 1_500),
      ...ask('r3', 1_600),
    ];
    const r = run(bodies, { only: ['TRIGGER_MISSED'] });
    expect(r.findings.map((d) => d.severity)).toEqual(['info']);
    expect(r.findings[0]?.message).toMatch(/deferred, because compaction k failed earlier in the same turn/);
  });

  it('TRIGGER_MISSED infers from the documented policy, at info, for clients that log neither policy nor failed compactions', () => {
    // Claude Code: trigger = window − 33,000 = 167,000 of a 200,000 window (src/shared/tokens/policy.ts).
    const ask = (id: string, n: number): CanonicalEventInput[] => [
      { kind: 'request', id, route: { model: 'claude-x', window: 200_000 } },
      assistant(`a-${id}`),
      { kind: 'response', request: id, usage: { input: n } },
    ];
    const bodies: CanonicalEventInput[] = [
      { kind: 'session', id: 's' },
      user('u1'),
      ...ask('r1', 160_000),
      ...ask('r2', 170_000),
      ...ask('r3', 175_000),
    ];
    const cc = run(bodies, { only: ['TRIGGER_MISSED'], format: 'claude-code' });
    expect(cc.findings.map((d) => d.severity)).toEqual(['info']);
    expect(cc.findings[0]?.message).toMatch(
      /past the 167,000-token automatic compaction trigger of Claude Code's documented policy \(auto-compact at window − 20,000 output reserve − 13,000 buffer, on the 200,000-token window the log records; the log records no policy\).*an inference from usage, not a recorded fact/,
    );
    expect(cc.findings[0]?.seqs).toEqual([5]);
    // A format whose logs record their policy gets no guess.
    expect(run(bodies, { only: ['TRIGGER_MISSED'], format: 'palimpsest' }).findings).toEqual([]);
    // Below the trigger: nothing.
    expect(
      run([{ kind: 'session', id: 's' }, user('u1'), ...ask('r1', 160_000), ...ask('r2', 166_000)], {
        only: ['TRIGGER_MISSED'],
        format: 'claude-code',
      }).findings,
    ).toEqual([]);
  });

  it("TRIGGER_MISSED infers Claude Code's trigger only on a recorded window where it is documented", () => {
    // A session of Claude Code 2.1.92 going on at 187,000–195,000 tokens: its log names no window
    // (the opt-in 1M window moved the threshold from version to version), so no trigger is known.
    const ask = (id: string, n: number, window?: number): CanonicalEventInput[] => [
      { kind: 'request', id, route: window === undefined ? { model: 'claude-opus-4-6' } : { model: 'claude-opus-4-6', window } },
      assistant(`a-${id}`),
      { kind: 'response', request: id, usage: { input: n } },
    ];
    const bodies = (window?: number): CanonicalEventInput[] => [
      { kind: 'session', id: 's' },
      user('u1'),
      ...ask('r1', 187_000, window),
      ...ask('r2', 195_000, window),
      ...ask('r3', 196_000, window),
    ];
    expect(run(bodies(), { only: ['TRIGGER_MISSED'], format: 'claude-code' }).findings).toEqual([]);
    expect(run(bodies(1_000_000), { only: ['TRIGGER_MISSED'], format: 'claude-code' }).findings).toEqual([]);
    expect(run(bodies(200_000), { only: ['TRIGGER_MISSED'], format: 'claude-code' }).findings.map((d) => d.severity)).toEqual(['info']);
  });

  it('MID_HISTORY_MUTATION estimates the suffix when the log reports no cache usage', () => {
    const bodies = [...base(), user('u2'), { kind: 'mask', items: ['t1'], by: 'harness' } as CanonicalEventInput];
    expect(run(bodies, { only: ['MID_HISTORY_MUTATION'] }).findings[0]?.message).toMatch(/not measured here/);
    // Only the assistant turn that asked for it comes after the result: a tail change.
    expect(run([...base(), { kind: 'mask', items: ['t1'], by: 'model' }], { only: ['MID_HISTORY_MUTATION'] }).findings).toEqual([]);
    expect(run(bodies, { only: ['MID_HISTORY_MUTATION'], estimate: quarterChars }).findings[0]?.message).toMatch(
      /About \d+ tokens after it/,
    );
  });

  it('MID_HISTORY_MUTATION reports one finding per event: a microcompact clearing several results is one change', () => {
    // Claude Code's microcompact masks every cleared tool result in one event.
    const bodies: CanonicalEventInput[] = [
      ...base(),
      call('a3', 'c2'),
      result('t2', 'c2'),
      call('a4', 'c3'),
      result('t3', 'c3'),
      user('u2'),
      { kind: 'mask', items: ['t1', 't2', 't3'], by: 'harness' },
    ];
    const r = run(bodies, { only: ['MID_HISTORY_MUTATION'] });
    expect(r.findings.map((d) => d.message)).toEqual([
      expect.stringMatching(
        /^The harness masked 3 items \("t1", "t2" and "t3"\) at surface positions 2 to 7 of 9, with 6 items after the first:/,
      ),
    ]);
    expect(r.findings[0]?.seqs).toEqual([11, 4, 7, 9]);
  });

  it('PROTECTED_TEXT_SHORTENED reports a mask hiding several protected items once', () => {
    const r = run([...base(), user('u2'), assistant('a3'), { kind: 'mask', items: ['u1', 'u2', 't1'], by: 'harness' }], {
      only: ['PROTECTED_TEXT_SHORTENED'],
    });
    expect(r.findings.map((d) => d.message)).toEqual([
      expect.stringMatching(/^The mask at seq 8 hides 2 protected items \("u1" and "u2"\) behind a reference/),
    ]);
    expect(r.findings[0]?.seqs).toEqual([8, 2, 6]);
  });

  // Rules find "the request before / after" by binary search over indexed lists (facts.ts); these
  // pin the bounds the linear scans had.
  const ask = (id: string, n: number, extra: Partial<Extract<CanonicalEventInput, { kind: 'request' }>> = {}): CanonicalEventInput[] => [
    { kind: 'request', id, ...extra },
    assistant(`a-${id}`),
    { kind: 'response', request: id, usage: { input: n } },
  ];

  it('TRIGGER_MISSED judges each request by the policy of the latest compaction started before it', () => {
    const bodies = (second: number): CanonicalEventInput[] => [
      { kind: 'session', id: 's' },
      user('u1'),
      { kind: 'compaction/start', id: 'k1', trigger: 'manual', policy: { triggerTokens: 1_000 } },
      { kind: 'compaction/end', id: 'k1', outcome: 'committed' },
      ...ask('r1', 500),
      { kind: 'compaction/start', id: 'k2', trigger: 'manual', policy: { triggerTokens: second } },
      { kind: 'compaction/end', id: 'k2', outcome: 'committed' },
      ...ask('r2', 2_000),
      ...ask('r3', 2_100),
      ...ask('r4', 2_200),
    ];
    expect(run(bodies(5_000), { only: ['TRIGGER_MISSED'] }).findings).toEqual([]);
    const r = run(bodies(1_500), { only: ['TRIGGER_MISSED'] });
    // r2 is left out (a compaction started since the request before it); r4 is the last request.
    expect(r.findings.map((d) => d.message)).toEqual([
      expect.stringMatching(/^Request #2 .* past the compaction trigger of 1,500 tokens \(from the recorded policy\)/),
    ]);
  });

  it('COMPACTION_GREW_CONTEXT compares with the last request after the previous compaction settled, never one before it', () => {
    const bodies = (between: CanonicalEventInput[]): CanonicalEventInput[] => [
      { kind: 'session', id: 's' },
      user('u1'),
      ...ask('r1', 100),
      { kind: 'compaction/start', id: 'A' },
      checkpoint('kA', 'A', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }),
      { kind: 'compaction/end', id: 'A', outcome: 'committed' },
      ...between,
      { kind: 'compaction/start', id: 'B' },
      checkpoint('kB', 'B', ['kA'], { op: 'replace', from: 'kA', to: 'kA' }),
      { kind: 'compaction/end', id: 'B', outcome: 'committed' },
      ...ask('r3', 150),
    ];
    // No request between A and B: B has nothing to be compared with (r1 came before A).
    expect(run(bodies([]), { only: ['COMPACTION_GREW_CONTEXT'] }).findings).toEqual([]);
    const r = run(bodies(ask('r2', 120)), { only: ['COMPACTION_GREW_CONTEXT'] });
    expect(r.findings.map((d) => d.message)).toEqual([
      expect.stringMatching(
        /^The first request after compaction A, request #1 .* not fewer than the 100 tokens of the last request before it, request #0/,
      ),
      expect.stringMatching(
        /^The first request after compaction B, request #2 .* not fewer than the 120 tokens of the last request before it, request #1/,
      ),
    ]);
  });

  it('MID_HISTORY_MUTATION compares the last cache report before the change with the first after it', () => {
    const usage = (id: string, u: { cacheRead: number; cacheWrite?: number }): CanonicalEventInput[] => [
      { kind: 'request', id },
      assistant(`a-${id}`),
      { kind: 'response', request: id, usage: { input: 10, ...u } },
    ];
    const bodies: CanonicalEventInput[] = [
      ...base(),
      ...usage('r1', { cacheRead: 1_000, cacheWrite: 200 }),
      user('u2'),
      ...usage('r2', { cacheRead: 1_500, cacheWrite: 0 }),
      { kind: 'mask', items: ['t1'], by: 'harness' },
      ...usage('r3', { cacheRead: 300 }),
      ...usage('r4', { cacheRead: 2_000 }),
    ];
    expect(run(bodies, { only: ['MID_HISTORY_MUTATION'] }).findings[0]?.message).toMatch(
      /The next request \(#2\) read 1,200 fewer cached tokens than request #1 had cached/,
    );
  });

  it('WINDOW_CHANGED compares the nearest requests with a window on either side of a compaction', () => {
    const route = (window: number) => ({ route: { model: 'm', window } });
    const bodies = (after: number): CanonicalEventInput[] => [
      { kind: 'session', id: 's' },
      user('u1'),
      ...ask('r1', 100, route(100_000)),
      ...ask('r2', 100, route(200_000)),
      ...ask('r3', 100),
      { kind: 'compaction/start', id: 'A' },
      checkpoint('kA', 'A', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }),
      { kind: 'compaction/end', id: 'A', outcome: 'committed' },
      ...ask('r4', 100),
      ...ask('r5', 100, route(after)),
      ...ask('r6', 100, route(50_000)),
    ];
    expect(run(bodies(200_000), { only: ['WINDOW_CHANGED'] }).findings).toEqual([]);
    expect(run(bodies(100_000), { only: ['WINDOW_CHANGED'] }).findings.map((d) => d.message)).toEqual([
      expect.stringMatching(/changed from 200,000 to 100,000 tokens across compaction A \(request #1 → #4\)/),
    ]);
  });
});

describe('seq lookups (seq-search.ts)', () => {
  const xs = [{ seq: 2 }, { seq: 5 }, { seq: 9 }];
  it('lastBefore is the last entry strictly before a seq', () => {
    expect([0, 2, 3, 5, 9, 10].map((s) => lastBefore(xs, s)?.seq ?? null)).toEqual([null, null, 2, 2, 5, 9]);
    expect(lastBefore([], 4)).toBeNull();
  });
  it('firstAfter is the first entry strictly after a seq', () => {
    expect([0, 2, 3, 5, 9, 10].map((s) => firstAfter(xs, s)?.seq ?? null)).toEqual([2, 5, 5, 9, null, null]);
    expect(firstAfter([], 4)).toBeNull();
  });
});

describe('lifecycle rules', () => {
  it('ORPHAN_COMPACTION_START: stale before a boundary (info), held in the current lifecycle (error)', () => {
    const stale = run([...base(), { kind: 'compaction/start', id: 'k' }, { kind: 'lifecycle', boundary: 'end-seed' }], {
      only: ['ORPHAN_COMPACTION_START'],
    });
    expect(stale.findings.map((d) => d.severity)).toEqual(['info']);
    const held = run([...base(), { kind: 'lifecycle', boundary: 'end-seed' }, { kind: 'compaction/start', id: 'k' }], {
      only: ['ORPHAN_COMPACTION_START'],
    });
    expect(held.findings.map((d) => d.severity)).toEqual(['error']);
  });

  it('ORPHAN_COMPACTION_START: a branch forked inside a bracket closed on its parent holds no lock', () => {
    const bodies: CanonicalEventInput[] = [
      ...base(),
      { kind: 'compaction/start', id: 'k' },
      { kind: 'fork', branch: 'summarizer', parent: { seq: 6 }, label: 'summarizer of k' },
      { kind: 'request', branch: 'summarizer', id: 'rs', purpose: 'compaction', compactionId: 'k' },
      checkpoint('k1', 'k', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }, [6, 2]),
      { kind: 'compaction/end', id: 'k', outcome: 'committed' },
    ];
    expect(run(bodies, { only: ['ORPHAN_COMPACTION_START'], branch: 'summarizer' }).findings).toEqual([]);
    expect(run(bodies.slice(0, -1), { only: ['ORPHAN_COMPACTION_START'], branch: 'summarizer' }).findings.map((d) => d.severity)).toEqual([
      'error',
    ]);
  });

  it('RETRY_LOOP: within the circuit breaker is silent; past it is an error; different failures are a warning', () => {
    const attempt = (id: string, breaker: boolean, code: string): CanonicalEventInput[] => [
      { kind: 'compaction/start', id, trigger: 'auto', ...(breaker ? { policy: { breaker: { failures: 2, cooldownTurns: 5 } } } : {}) },
      { kind: 'compaction/summary-error', id, error: { code, message: 'x' } },
      { kind: 'compaction/end', id, outcome: 'failed', error: { code, message: 'x' } },
    ];
    const twice = run([...base(), ...attempt('k1', true, 'E'), ...attempt('k2', true, 'E')], { only: ['RETRY_LOOP'] });
    expect(twice.findings).toEqual([]);
    const thrice = run([...base(), ...attempt('k1', true, 'E'), ...attempt('k2', true, 'E'), ...attempt('k3', true, 'E')], {
      only: ['RETRY_LOOP'],
    });
    expect(thrice.findings.map((d) => d.severity)).toEqual(['error']);
    const mixed = run([...base(), ...attempt('k1', false, 'A'), ...attempt('k2', false, 'B')], { only: ['RETRY_LOOP'] });
    expect(mixed.findings.map((d) => d.severity)).toEqual(['warning']);
    const nextTurn = run([...base(), ...attempt('k1', false, 'A'), user('u9'), ...attempt('k2', false, 'A')], { only: ['RETRY_LOOP'] });
    expect(nextTurn.findings).toEqual([]);
  });

  it('SILENT_FALLBACK: a deterministic handoff without marker is a warning; a truncation drop without marker an error', () => {
    const det = run(
      [
        ...base(),
        { kind: 'compaction/start', id: 'k' },
        checkpoint('k1', 'k', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }, [6, 2]),
        { kind: 'compaction/end', id: 'k', outcome: 'fallback', fallback: { kind: 'deterministic', marker: false } },
      ],
      { only: ['SILENT_FALLBACK'] },
    );
    expect(det.findings.map((d) => d.severity)).toEqual(['warning']);
    const drop = run([...base(), { kind: 'drop', items: ['a2'], reason: 'truncation' }], { only: ['SILENT_FALLBACK'] });
    expect(drop.findings.map((d) => d.severity)).toEqual(['error']);
  });

  it('HALF_WRITTEN_COMPACTION: a record that says committed with no checkpoint', () => {
    const r = run([...base(), { kind: 'compaction/start', id: 'k' }, { kind: 'compaction/end', id: 'k', outcome: 'committed' }], {
      only: ['HALF_WRITTEN_COMPACTION'],
    });
    expect(r.findings[0]?.message).toMatch(/recorded as committed/);
  });

  it('WINDOW_CHANGED says nothing when the model changed too', () => {
    const bodies = (route: object): CanonicalEventInput[] => [
      { kind: 'session', id: 's' },
      { kind: 'header', route: { model: 'm', window: 200_000 } },
      user('u1'),
      { kind: 'request', id: 'r1' },
      { kind: 'compaction/start', id: 'k' },
      checkpoint('k1', 'k', ['u1'], { op: 'replace', from: 'u1', to: 'u1' }, [4, 2]),
      { kind: 'compaction/end', id: 'k', outcome: 'committed' },
      { kind: 'header', route },
      { kind: 'request', id: 'r2' },
    ];
    expect(run(bodies({ window: 32_768 }), { only: ['WINDOW_CHANGED'] }).findings).toHaveLength(1);
    expect(run(bodies({ model: 'small', window: 32_768 }), { only: ['WINDOW_CHANGED'] }).findings).toEqual([]);
  });
});

describe('MapReduce rules', () => {
  const mr = (...extra: CanonicalEventInput[]): CanonicalEventInput[] => [
    ...base(),
    { kind: 'compaction/start', id: 'k', source: ['u1', 'a1', 't1', 'a2'] },
    ...extra,
    { kind: 'mapreduce/reduce', compactionId: 'k', level: 0, inputs: [0, 1], final: true, output: text('s'), finish: STOP },
    checkpoint('k1', 'k', ['u1', 'a1', 't1', 'a2'], { op: 'replace', from: 'u1', to: 'a2' }, [6, 2, 3, 4, 5]),
    { kind: 'compaction/end', id: 'k', outcome: 'committed' },
  ];

  it('MAPREDUCE_LIMIT_EXCEEDED counts map calls in flight', () => {
    const send = (i: number): CanonicalEventInput => ({
      kind: 'request',
      id: `m${i}`,
      purpose: 'map',
      compactionId: 'k',
      input: { items: ['u1'], instruction: null },
    });
    const answer = (i: number): CanonicalEventInput => ({ kind: 'response', request: `m${i}`, finish: STOP });
    const five = run(mr(send(0), send(1), send(2), send(3), send(4), answer(0), answer(1), answer(2), answer(3), answer(4)), {
      only: ['MAPREDUCE_LIMIT_EXCEEDED'],
    });
    expect(five.findings[0]?.message).toMatch(/5 map calls in flight/);
    const four = run(mr(send(0), send(1), send(2), send(3), answer(0), send(4), answer(1), answer(2), answer(3), answer(4)), {
      only: ['MAPREDUCE_LIMIT_EXCEEDED'],
    });
    expect(four.findings).toEqual([]);
  });

  it('STALE_STAGING_REUSED: a legacy-only commit is a warning, an error once the log shows version-3 staging before it', () => {
    const legacy = (version: 1 | 2 | null): CanonicalEventInput => ({
      kind: 'mapreduce/staging',
      compactionId: 'k',
      version,
      fingerprint: '',
      segments: [{ ordinal: 0, items: ['u1', 'a1', 't1', 'a2'] }],
    });
    expect(run(mr(legacy(2)), { only: ['STALE_STAGING_REUSED'] }).findings.map((d) => d.severity)).toEqual(['warning']);
    const earlier: CanonicalEventInput[] = [
      { kind: 'mapreduce/staging', compactionId: 'old', version: 3, fingerprint: 'f', segments: [{ ordinal: 0, items: ['u1'] }] },
    ];
    const bodies = mr(legacy(null));
    bodies.splice(2, 0, ...earlier);
    const fixed = bodies.map((b) =>
      b.kind === 'item' && b.item.derivation?.kind === 'checkpoint' ? { ...b, sources: [7, 3, 4, 5, 6] } : b,
    );
    expect(run(fixed, { only: ['STALE_STAGING_REUSED'] }).findings.map((d) => d.severity)).toEqual(['error']);
  });

  it('ITEM_CUT flags a segment that is not a contiguous range of the source', () => {
    const r = run(
      mr({
        kind: 'mapreduce/staging',
        compactionId: 'k',
        version: 3,
        fingerprint: 'f',
        segments: [
          { ordinal: 0, items: ['u1', 't1'] },
          { ordinal: 1, items: ['a1', 'a2'] },
        ],
      }),
      { only: ['ITEM_CUT'] },
    );
    expect(r.findings.map((d) => d.severity).sort()).toEqual(['error', 'error', 'warning']);
  });
});

describe('UNKNOWN_RECORDS', () => {
  it('does not repeat what an importer already reported', () => {
    const events = log([...base(), { kind: 'unknown', type: 'x/y' }]);
    const state = replay(events);
    const reported = [
      { rule: 'UNKNOWN_RECORDS', severity: 'warning' as const, message: 'importer said it.', file: 'f', line: 7, seqs: [6] },
    ];
    expect(diagnose({ events, state, reported }, { only: ['UNKNOWN_RECORDS'] })).toEqual([]);
    expect(diagnose({ events, state }, { only: ['UNKNOWN_RECORDS'] })).toHaveLength(1);
  });
});
