import { describe, expect, it } from 'vitest';
import { commandOfCall, commandsIn } from '../../../src/shared/forensics/extract/commands';
import { constraintsIn } from '../../../src/shared/forensics/extract/constraints';
import { decisionsIn } from '../../../src/shared/forensics/extract/decisions';
import { errorsIn } from '../../../src/shared/forensics/extract/errors';
import { identifiersIn } from '../../../src/shared/forensics/extract/identifiers';
import { numbersIn, numberValue } from '../../../src/shared/forensics/extract/numbers';
import { pathsIn, pathsOfCall } from '../../../src/shared/forensics/extract/paths';
import { askOf, tasksIn, todosOfCall } from '../../../src/shared/forensics/extract/tasks';
import { urlsIn } from '../../../src/shared/forensics/extract/urls';

/*
 * Each extractor on text from the real sessions of fixtures/corpus/ and fixtures/claude-code/ (the
 * strings below are copied from them), and on the near misses that must not count.
 */

describe('paths', () => {
  it('reads absolute, relative and bare file names, not URLs, fractions or "and/or"', () => {
    expect(pathsIn('Edit /home/USER/projects/spotter-worktrees/spotter-4te/mix.exs and lib/spotter/telemetry.ex, then README.md.')).toEqual(
      ['/home/USER/projects/spotter-worktrees/spotter-4te/mix.exs', 'lib/spotter/telemetry.ex', 'README.md'],
    );
    expect(pathsIn('see https://hexdocs.pm/opentelemetry/readme.html; 3/4 done, read and/or write')).toEqual([]);
  });
  it("takes a tool call's path arguments, not the content it writes", () => {
    expect(pathsOfCall(JSON.stringify({ file_path: '/repo/src/a.ts', content: 'import x from "./b/c.ts";' }))).toEqual(['/repo/src/a.ts']);
    expect(pathsOfCall('not json')).toEqual([]);
  });
});

describe('commands', () => {
  it('reads Claude Code and Codex shell calls, unwrapping bash -lc', () => {
    expect(commandOfCall(JSON.stringify({ command: 'mix test --seed 0 2>&1 | tail -50', description: 'Run tests' }))).toBe(
      'mix test --seed 0 2>&1 | tail -50',
    );
    expect(commandOfCall(JSON.stringify({ command: ['bash', '-lc', 'rg -n "Vault" AGENTS.md'] }))).toBe('rg -n "Vault" AGENTS.md');
    expect(commandOfCall(JSON.stringify({ cmd: 'git status' }))).toBe('git status');
    expect(commandOfCall(JSON.stringify({ file_path: '/a/b.ts' }))).toBeNull();
  });
  it('reads command lines in prose: "$ …" lines and code spans of known programs', () => {
    expect(commandsIn('Run `npm test -- import` first.\n$ git log -3 --oneline\nThe `config` object')).toEqual([
      'npm test -- import',
      'git log -3 --oneline',
    ]);
  });
});

describe('identifiers', () => {
  it('reads code names and leaves words alone', () => {
    expect(identifiersIn('Call set_text_map_propagator from Spotter.Telemetry.setup() via OpentelemetryBandit.')).toEqual([
      'set_text_map_propagator',
      'Spotter.Telemetry.setup',
      'OpentelemetryBandit',
    ]);
    expect(identifiersIn('The quick brown fox jumps over the lazy dog.')).toEqual([]);
  });
});

describe('urls', () => {
  it('reads URLs without the punctuation after them', () => {
    expect(
      urlsIn('Docs: https://hexdocs.pm/opentelemetry_bandit/readme.html). See (https://github.com/open-telemetry/opentelemetry-erlang).'),
    ).toEqual(['https://hexdocs.pm/opentelemetry_bandit/readme.html', 'https://github.com/open-telemetry/opentelemetry-erlang']);
  });
});

describe('errors', () => {
  it('reads error codes and "…Error: message" lines, not the word "error" alone', () => {
    expect(errorsIn('** (UndefinedFunctionError) function :otel_propagator_text_map.set/1 is undefined\nENOENT: no such file')).toEqual([
      'ENOENT',
      'UndefinedFunctionError) function :otel_propagator_text_map.set/1 is undefined',
    ]);
    expect(errorsIn('There were no errors in the build.')).toEqual([]);
  });
});

describe('numbers', () => {
  it('reads versions, large numbers and numbers with units', () => {
    expect(numbersIn('164,831 → 36,081 tokens; opentelemetry_bandit 0.3.0; timeout 500 ms; 12k context; 3 files')).toEqual([
      '164,831',
      '36,081 tokens',
      '0.3.0',
      '500 ms',
      '12k',
    ]);
  });
  it('reads a number back as value and unit, so that reformatting matches', () => {
    expect(numberValue('12,000')).toEqual({ value: 12000, unit: '' });
    expect(numberValue('12k')).toEqual({ value: 12000, unit: '' });
    expect(numberValue('500 ms')).toEqual({ value: 500, unit: 'ms' });
    expect(numberValue('36,081 tokens')).toEqual({ value: 36081, unit: 'token' });
    expect(numberValue('0.3.0')).toBeNull();
  });
});

describe('constraints', () => {
  it("reads the user's binding sentences (real prompts of fixtures/corpus/codex)", () => {
    expect(constraintsIn('Never batch multiple specs. Never rewrite the spec file.')).toEqual([
      'Never batch multiple specs.',
      'Never rewrite the spec file.',
    ]);
    expect(constraintsIn('Do not request credentials; do not open browsers.')).toEqual([
      'Do not request credentials; do not open browsers.',
    ]);
    expect(constraintsIn('Purpose: run a single ButlerSpec file with strict guardrails; never replan or modify other files.')).toHaveLength(
      1,
    );
    expect(constraintsIn('Find out why and fix it; do not change the CSV column order.')).toHaveLength(1);
  });
  it('leaves out what only sounds like one: "I don\'t know", questions, a constraint word mid-sentence, fenced text', () => {
    expect(constraintsIn("I don't know why it only fails on CI.")).toEqual([]);
    expect(constraintsIn('Should we never cache the token?')).toEqual([]);
    expect(constraintsIn('It only happens on the second run.')).toEqual([]);
    expect(constraintsIn('```\nNever gonna give you up\n```')).toEqual([]);
  });
  it('takes "you must …" at the head of a clause, not an error message pasted mid-sentence (a real Claude Code prompt)', () => {
    expect(constraintsIn('You must not push to main. Also you should never delete the fixtures.')).toHaveLength(2);
    expect(
      constraintsIn(
        "this appear in My/applications when try with one user You are not allowed to access 'Recruitment Stages' (hr.recruitment.stage) records.",
      ),
    ).toEqual([]);
  });
});

describe('tasks', () => {
  it("takes the open entries of a todo call (Claude Code's TodoWrite, Codex's update_plan)", () => {
    const todos = todosOfCall(
      JSON.stringify({
        todos: [
          { content: 'Add OTEL deps', status: 'completed' },
          { content: 'Propagate traceparent', status: 'in_progress' },
        ],
      }),
    );
    expect(todos).toEqual([
      { text: 'Add OTEL deps', done: true },
      { text: 'Propagate traceparent', done: false },
    ]);
    expect(todosOfCall(JSON.stringify({ plan: [{ step: 'Write the test', status: 'pending' }] }))).toEqual([
      { text: 'Write the test', done: false },
    ]);
    expect(todosOfCall(JSON.stringify({ command: 'ls' }))).toBeNull();
  });
  it('reads unchecked boxes and TODO lines, and the ask of a prompt', () => {
    expect(tasksIn('- [x] done\n- [ ] wire the exporter\n// TODO: drop the shim')).toEqual(['wire the exporter', '// TODO: drop the shim']);
    expect(askOf('THE HUNTER AWAKENS: hunt inside the Vault for zombies and ghosts')).toBe(
      'THE HUNTER AWAKENS: hunt inside the Vault for zombies and ghosts',
    );
  });
});

describe('decisions', () => {
  it('reads sentences that choose, not questions', () => {
    expect(decisionsIn("I'll use the otel_propagator_trace_context module instead of a custom header. Should we switch to gRPC?")).toEqual([
      "I'll use the otel_propagator_trace_context module instead of a custom header.",
    ]);
  });
});
