// Writes the fixtures of the rules over a joined session (fixtures/diagnostics/<RULE>/ for the
// rules whose origin is `wire`): a real client's log and the captures `palimpsest record` wrote for
// it, copied from the recorded fidelity runs (fixtures/fidelity/recorded/). Two failing cases no
// scenario produces are made by one stated edit of a real capture each:
//  - FALLBACK_LOGGED_AS_SUCCESS: the summarizer's successful exchange is taken out of a Claude Code
//    run whose compaction committed after two HTTP 500s (as if the committed summary came from
//    elsewhere);
//  - WIRE_LOG_DISAGREE: one word of the user's prompt is changed in the first captured request of a
//    healthy run (as if the harness logged something else than it sent).
//
//   node scripts/gen-wire-fixtures.mjs
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const REC = 'fixtures/fidelity/recorded';
const OUT = 'fixtures/diagnostics';

function run(client, scenario) {
  const dir = join(REC, client, scenario);
  const r = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
  return { dir, log: join(dir, r.mainLog), captures: r.captures.map((c) => join(dir, c)) };
}

/** Copies a run as `<name>.jsonl` + `<name>.capture-N.jsonl`, each capture through `edit` (lines → lines). */
function put(rule, name, src, edit = (_i, lines) => lines) {
  const dir = join(OUT, rule);
  mkdirSync(dir, { recursive: true });
  copyFileSync(src.log, join(dir, `${name}.jsonl`));
  src.captures.forEach((c, i) => {
    const lines = readFileSync(c, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    writeFileSync(join(dir, `${name}.capture-${i + 1}.jsonl`), `${edit(i, lines).join('\n')}\n`);
  });
}

const CC = 'claude-code-2.1.332';
const CODEX = 'codex-0.171.0';
for (const rule of [
  'COMPACTION_ATTEMPTS_FAILED',
  'WIRE_RETRY_LOOP',
  'SUMMARY_FROM_CUT_RESPONSE',
  'FALLBACK_LOGGED_AS_SUCCESS',
  'WIRE_LOG_DISAGREE',
]) {
  rmSync(join(OUT, rule), { recursive: true, force: true });
}
put('COMPACTION_ATTEMPTS_FAILED', 'fail', run(CC, 'compact-overloaded'));
put('COMPACTION_ATTEMPTS_FAILED', 'pass', run(CC, 'compact-http-500'));
put('WIRE_RETRY_LOOP', 'fail', run(CODEX, 'compact-overloaded'));
put('WIRE_RETRY_LOOP', 'pass', run(CC, 'compact-http-500'));
put('SUMMARY_FROM_CUT_RESPONSE', 'fail', run(CC, 'compact-max-tokens'));
put('SUMMARY_FROM_CUT_RESPONSE', 'pass', run(CC, 'manual-compact'));
put('FALLBACK_LOGGED_AS_SUCCESS', 'fail', run(CC, 'compact-http-500'), (i, lines) =>
  // The /compact turn's capture: drop the one exchange the summarizer answered with 200.
  i === 1 ? lines.filter((l) => !(l.includes('"type":"exchange"') && JSON.parse(l).response?.status === 200)) : lines,
);
put('FALLBACK_LOGGED_AS_SUCCESS', 'pass', run(CC, 'compact-http-500'));
put('WIRE_LOG_DISAGREE', 'fail', run(CC, 'tools-resume'), (i, lines) =>
  i === 0 ? lines.map((l, n) => (n === 1 ? l.replace('Print a greeting with the shell.', 'Print a farewell with the shell.') : l)) : lines,
);
put('WIRE_LOG_DISAGREE', 'pass', run(CC, 'tools-resume'));
