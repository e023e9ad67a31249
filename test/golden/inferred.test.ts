import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionInspector } from '../../src/main/session/inspector';
import { loadSession, locateDiagnostics } from '../../src/main/session/load';
import { diagnose, loadRuleTexts } from '../../src/shared/diagnostics';
import type { Diagnostic } from '../../src/shared/model/diagnostic';

/**
 * The rules that infer a failed compaction from the log alone, on every session in fixtures/: the
 * fidelity runs (real Claude Code and Codex logs of scripted failures, whose captured.jsonl says
 * what really happened) and every example session. Precision is the point: each finding below is
 * one the log supports, and the rules say nothing anywhere else.
 */

const INFERRED = [
  'PROMPT_UNANSWERED_INFERRED',
  'API_ERROR_NEAR_COMPACTION',
  'COMPACTION_FAILURE_NOTICE',
  'SUMMARY_SECTIONS_MISSING',
  'TURN_FAILED_BEFORE_RESPONSE_INFERRED',
];

async function findings(path: string): Promise<Diagnostic[]> {
  const session = await loadSession(path);
  try {
    const ins = new SessionInspector(session);
    const out: Diagnostic[] = [];
    for (const branch of ins.branches.map((b) => b.name)) {
      const state = ins.replay(branch);
      const base = [...session.diagnostics, ...locateDiagnostics(session, state.diagnostics)];
      const fullBlocks = await loadRuleTexts(session.events, state, (seqs) => session.hydrateMany(seqs));
      out.push(...diagnose({ events: session.events, state, format: session.format, reported: base, fullBlocks }, { only: INFERRED }));
    }
    return out;
  } finally {
    await session.dispose();
  }
}

const FIDELITY = 'fixtures/fidelity/logs';

/** The main log of each fidelity run, by "<client>-<version>/<scenario>". */
function fidelityRuns(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const client of readdirSync(FIDELITY).sort()) {
    for (const scenario of readdirSync(join(FIDELITY, client)).sort()) {
      const dir = join(FIDELITY, client, scenario);
      const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { mainLog: string };
      out[`${client}/${scenario}`] = join(dir, run.mainLog);
    }
  }
  return out;
}

/** Every example session under fixtures/, as `validate <dir>` finds them (Claude Code companion folders go with their file). */
function examples(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        if (dir === 'fixtures/rind') out.push(p);
        else if (!/^[0-9a-f-]{36}$/.test(name)) walk(p);
      } else if (/\.jsonl(\.zstd?)?$/.test(name)) out.push(p);
    }
  };
  for (const d of [
    'fixtures/palimpsest',
    'fixtures/dsh',
    'fixtures/dsh-zstd',
    'fixtures/claude-code',
    'fixtures/codex',
    'fixtures/cosh',
    'fixtures/rind',
  ])
    walk(d);
  return out;
}

/** What fires on each fidelity run, and why (the truth is in the run's captured.jsonl and run.json). */
const FIDELITY_EXPECTED: Record<string, { findings: string[]; why: string }> = {
  'claude-code-2.1.332/auto-compact': { findings: [], why: 'the automatic compaction committed and the prompt was answered' },
  'claude-code-2.1.332/manual-compact': { findings: [], why: 'a healthy /compact: "Summary:" and three numbered sections' },
  'claude-code-2.1.332/tools-resume': { findings: [], why: 'no compaction' },
  'claude-code-2.1.332/local-command-compact': { findings: [], why: 'a healthy /compact after a /context whose echo asks for no answer' },
  'claude-code-2.1.332/local-command-interactive': { findings: [], why: 'the same, typed: a healthy /compact after /context' },
  'claude-code-2.1.332/todo-reminder': { findings: [], why: 'no compaction' },
  'claude-code-2.1.97/local-command-compact': { findings: [], why: 'a healthy /compact after a /context whose echo asks for no answer' },
  'claude-code-2.1.97/local-command-interactive': { findings: [], why: 'typed: a healthy /compact after an unanswered /context echo' },
  'claude-code-2.1.9/local-command-interactive': { findings: [], why: 'typed: a healthy /compact (2.1.9 logs nothing of /context)' },
  'claude-code-2.1.97/todo-reminder': { findings: [], why: 'no compaction' },
  'claude-code-2.1.97/auto-compact-trigger': { findings: [], why: 'the automatic compaction committed where the version compacts' },
  'claude-code-2.1.9/auto-compact-trigger': { findings: [], why: 'the automatic compaction committed where the version compacts' },
  'claude-code-2.1.9/microcompact': { findings: [], why: 'no compaction: the microcompact is on the wire only' },
  'claude-code-2.1.9/microcompact-interactive': { findings: [], why: 'no compaction: a microcompact, logged, is no failure' },
  'claude-code-2.1.332/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed summary (its durationMs is longer, nothing more), so nothing is claimed',
  },
  'claude-code-2.1.332/compact-overloaded': {
    findings: ['COMPACTION_FAILURE_NOTICE'],
    why: 'the /compact ended in "Error during compaction: … 529 Overloaded …" and no boundary',
  },
  'claude-code-2.1.332/compact-max-tokens': {
    findings: ['SUMMARY_SECTIONS_MISSING'],
    why: 'the summarizer was cut at max_tokens and the client committed "OK"',
  },
  'codex-0.171.0/auto-compact': { findings: [], why: 'the compaction committed' },
  'codex-0.171.0/compact-http-500': { findings: [], why: 'the retries succeeded: nothing in the log says otherwise' },
  'codex-0.171.0/tools-resume': { findings: [], why: 'no compaction' },
  'codex-0.171.0/compact-length': {
    findings: ['TURN_FAILED_BEFORE_RESPONSE_INFERRED', 'TURN_FAILED_BEFORE_RESPONSE_INFERRED'],
    why: 'both later turns: the summarizer was cut at the output limit (a failed compaction the importer reads from its usage record) and the turn ended with the error',
  },
  'claude-code-2.1.332/compact-cut-stream': {
    findings: ['COMPACTION_FAILURE_NOTICE'],
    why: 'every summarizer stream was cut; the /compact ended in "Error during compaction: …" (the last attempt, cut before its headers, reached the client as the recorder\'s 502) and no boundary',
  },
  'codex-0.171.0/compact-cut-stream': {
    findings: ['TURN_FAILED_BEFORE_RESPONSE_INFERRED', 'TURN_FAILED_BEFORE_RESPONSE_INFERRED'],
    why: 'both later turns ended with "stream disconnected before completion" before any model call: the cut summarizer streams left nothing else',
  },
  // The older versions of the matrix (four scenarios each on Claude Code, three on Codex).
  'claude-code-2.0.77/auto-compact': {
    findings: [],
    why: 'this version did not compact on the reported usage (no boundary, no compacted record): nothing failed, nothing is claimed',
  },
  'claude-code-2.0.77/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed compaction, so nothing is claimed',
  },
  'claude-code-2.0.77/manual-compact': { findings: [], why: 'a healthy /compact: the boundary and its summary' },
  'claude-code-2.0.77/tools-resume': { findings: [], why: 'no compaction' },
  'claude-code-2.1.9/auto-compact': {
    findings: [],
    why: 'this version did not compact on the reported usage (no boundary, no compacted record): nothing failed, nothing is claimed',
  },
  'claude-code-2.1.9/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed compaction, so nothing is claimed',
  },
  'claude-code-2.1.9/manual-compact': { findings: [], why: 'a healthy /compact: the boundary and its summary' },
  'claude-code-2.1.9/tools-resume': { findings: [], why: 'no compaction' },
  'claude-code-2.1.97/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'claude-code-2.1.97/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed compaction, so nothing is claimed',
  },
  'claude-code-2.1.97/manual-compact': { findings: [], why: 'a healthy /compact: the boundary and its summary' },
  'claude-code-2.1.97/tools-resume': { findings: [], why: 'no compaction' },
  'claude-code-2.1.197/auto-compact': {
    findings: [],
    why: 'this version did not compact on the reported usage (no boundary, no compacted record): nothing failed, nothing is claimed',
  },
  'claude-code-2.1.197/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed compaction, so nothing is claimed',
  },
  'claude-code-2.1.197/manual-compact': { findings: [], why: 'a healthy /compact: the boundary and its summary' },
  'claude-code-2.1.197/tools-resume': { findings: [], why: 'no compaction' },
  'codex-0.47.0/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'codex-0.47.0/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed compaction, so nothing is claimed',
  },
  'codex-0.47.0/tools-resume': { findings: [], why: 'no compaction' },
  'codex-0.59.0/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'codex-0.59.0/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed compaction, so nothing is claimed',
  },
  'codex-0.59.0/tools-resume': { findings: [], why: 'no compaction' },
  'codex-0.77.0/auto-compact': {
    findings: [],
    why: 'this version did not compact on the reported usage (no boundary, no compacted record): nothing failed, nothing is claimed',
  },
  'codex-0.77.0/compact-http-500': {
    findings: [],
    why: 'this version did not compact on the reported usage (no boundary, no compacted record): nothing failed, nothing is claimed',
  },
  'codex-0.77.0/tools-resume': { findings: [], why: 'no compaction' },
  'codex-0.118.0/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'codex-0.118.0/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed compaction, so nothing is claimed',
  },
  'codex-0.118.0/tools-resume': { findings: [], why: 'no compaction' },
  'codex-0.169.0/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'codex-0.169.0/compact-http-500': {
    findings: [],
    why: 'two HTTP 500s then a good summary: the log shows only the committed compaction, so nothing is claimed',
  },
  'codex-0.169.0/tools-resume': { findings: [], why: 'no compaction' },
  'codex-0.171.0/compact-overloaded': {
    findings: ['TURN_FAILED_BEFORE_RESPONSE_INFERRED', 'TURN_FAILED_BEFORE_RESPONSE_INFERRED'],
    why: 'both later turns ended with "Selected model is at capacity" before any model call: the 503s on the summarizer left nothing else',
  },
  'opencode-1.0.162/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'opencode-1.0.162/manual-compact': { findings: [], why: 'the manual compaction committed' },
  'opencode-1.0.162/prune': { findings: [], why: 'pruning, no compaction' },
  'opencode-1.2.27/manual-compact': { findings: [], why: 'the manual compaction committed' },
  'opencode-1.3.2/manual-compact': { findings: [], why: 'the manual compaction committed' },
  'opencode-1.3.2/prune': { findings: [], why: 'pruning, no compaction' },
  'opencode-1.14.41/manual-compact': { findings: [], why: 'the manual compaction committed' },
  'opencode-1.18.33/manual-compact': { findings: [], why: 'the manual compaction committed' },
  'opencode-1.18.33/prune': { findings: [], why: 'pruning, no compaction' },
  'opencode-1.0.162/tools-resume': { findings: [], why: 'no compaction' },
  'opencode-1.2.27/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'opencode-1.2.27/tools-resume': { findings: [], why: 'no compaction' },
  'opencode-1.3.2/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'opencode-1.3.2/tools-resume': { findings: [], why: 'no compaction' },
  'opencode-1.14.41/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'opencode-1.14.41/tools-resume': { findings: [], why: 'no compaction' },
  'opencode-1.18.33/auto-compact': { findings: [], why: 'the automatic compaction committed' },
  'opencode-1.18.33/tools-resume': { findings: [], why: 'no compaction' },
  'opencode-1.18.33/compact-http-400': {
    findings: [],
    why: 'each summary message records the HTTP 400 as its error: a failure the log traces, nothing to infer',
  },
  'gemini-cli-0.22.4/auto-compact': { findings: [], why: 'the compression left nothing in the file (before 0.44)' },
  'gemini-cli-0.22.4/tools-resume': { findings: [], why: 'no compression' },
  'gemini-cli-0.38.2/auto-compact': { findings: [], why: 'the compression left nothing in the file (before 0.44)' },
  'gemini-cli-0.38.2/tools-resume': { findings: [], why: 'no compression' },
  'gemini-cli-0.41.2/auto-compact': { findings: [], why: 'the compression left nothing in the file (before 0.44)' },
  'gemini-cli-0.41.2/tools-resume': { findings: [], why: 'no compression' },
  'gemini-cli-0.45.2/auto-compact': { findings: [], why: 'the compression committed' },
  'gemini-cli-0.45.2/tools-resume': { findings: [], why: 'no compression' },
  'gemini-cli-0.61.0/auto-compact': { findings: [], why: 'the compression committed' },
  'gemini-cli-0.61.0/tools-resume': { findings: [], why: 'no compression' },
  'gemini-cli-0.61.0/compact-empty-summary': { findings: [], why: 'the failed compression left nothing in the file' },
};

/** Example sessions where a finding is correct as the file is written. */
const EXAMPLE_EXPECTED: Record<string, { findings: string[]; why: string }> = {
  'fixtures/claude-code/dag_compact_after_rewind_preserved.jsonl': {
    findings: ['SUMMARY_SECTIONS_MISSING'],
    why: 'a synthetic parser test: its summary is the single line "Summary: the user asked for a plan." (no summary block, no numbered section)',
  },
};

describe('the inferred-failure rules on every fixture session', () => {
  it('covers every fidelity run', () => {
    expect(Object.keys(fidelityRuns()).sort()).toEqual(Object.keys(FIDELITY_EXPECTED).sort());
  });

  for (const [run, path] of Object.entries(fidelityRuns())) {
    const e = FIDELITY_EXPECTED[run];
    it(`${run}: ${e?.findings.length ? e.findings.join(', ') : 'silent'}`, async () => {
      const ds = await findings(path);
      expect(ds.map((d) => d.rule).sort()).toEqual([...(e?.findings ?? [])].sort());
      for (const d of ds) {
        expect(d.severity).toBe('warning');
        expect(d.message).toMatch(/inferred from/);
        expect(d.seqs.length).toBeGreaterThan(0);
      }
    });
  }

  it('is silent on every example session, except where the file as written warrants a finding', async () => {
    const all = examples();
    expect(all.length).toBeGreaterThan(20);
    const got: Record<string, string[]> = {};
    for (const p of all) {
      const rules = (await findings(p)).map((d) => d.rule).sort();
      if (rules.length > 0) got[p] = rules;
    }
    expect(got).toEqual(Object.fromEntries(Object.entries(EXAMPLE_EXPECTED).map(([p, e]) => [p, e.findings])));
  });
});

describe('what the findings on the fidelity failures say and cite', () => {
  const runs = fidelityRuns();

  it('compact-overloaded (Claude Code): quotes the notice and cites it and the next request', async () => {
    const [d] = await findings(runs['claude-code-2.1.332/compact-overloaded'] as string);
    expect(d?.message).toContain('Claude Code reported "Error during compaction: API Error: Repeated 529 Overloaded errors.');
    expect(d?.message).toContain('request #2 (seq 56)');
    expect(d?.seqs).toEqual([44, 56]);
  });

  it('compact-max-tokens (Claude Code): the committed "OK" summary and its compaction', async () => {
    const [d] = await findings(runs['claude-code-2.1.332/compact-max-tokens'] as string);
    expect(d?.message).toContain('2 characters long ("OK")');
    expect(d?.seqs).toEqual([46, 45]);
  });

  it('compact-overloaded (Codex): each failed turn, its prompt and the last reported context', async () => {
    const ds = await findings(runs['codex-0.171.0/compact-overloaded'] as string);
    expect(ds.map((d) => d.seqs)).toEqual([
      [29, 27, 20],
      [35, 33, 20],
    ]);
    expect(ds[0]?.message).toContain(
      '"Selected model is at capacity. Please try a different model. (server_overloaded)" (seq 29) before any model call was logged',
    );
    expect(ds[0]?.message).toContain('reported 80,000 tokens');
  });

  it('compact-length (Codex): each turn names the failed compaction that ended it', async () => {
    const ds = await findings(runs['codex-0.171.0/compact-length'] as string);
    expect(ds.map((d) => d.seqs)).toEqual([
      [37, 32, 35],
      [51, 46, 49],
    ]);
    expect(ds[0]?.message).toContain(
      'right after compaction cmp:L25 failed (seq 32: "Incomplete response returned, reason: max_output_tokens")',
    );
  });
});
