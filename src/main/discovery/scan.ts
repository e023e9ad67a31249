import { ClaudeScanner } from './scan-claude';
import { CodexScanner } from './scan-codex';
import { isZstdPath } from '../reader/zstd';
import { type BlockScanner, scanFileSync, scanLinesSync } from './scan-file';
import { scanGemini } from './scan-gemini';
import { CoshScanner, DshScanner, PalimpsestScanner, scanRind } from './scan-small';
import type { Harness, ScanResult, SessionCandidate } from './types';

/**
 * The version of each harness's scanner: bump one when its output for the same bytes changes, and
 * the index re-scans that harness's sessions (and only those).
 */
export const SCANNER_VERSIONS: Readonly<Record<Harness, number>> = {
  // claude-code 2: the last model and version when lines read by different paths interleave, and
  // short lines of other shapes read by JSON.parse (message id and model wherever they sit).
  'claude-code': 2,
  codex: 1,
  dsh: 1,
  rind: 1,
  cosh: 1,
  'gemini-cli': 1,
  palimpsest: 1,
  // Listed from its databases and storage trees in each run (./opencode.ts), not scanned nor indexed.
  opencode: 1,
};

/**
 * A fast summary of one session (see each scanner for what it counts and how exactly). Reads the
 * session's main file (Rind: its folder); never throws: what cannot be read is in `problems`.
 */
export function scanSession(c: SessionCandidate): ScanResult {
  const main = c.files[0]?.path ?? c.path;
  try {
    switch (c.harness) {
      case 'rind':
        return scanRind(c.path);
      case 'claude-code':
        return isZstdPath(main) ? run(main, new ClaudeScanner()) : runLines(main, new ClaudeScanner());
      case 'codex':
        return run(main, new CodexScanner());
      case 'dsh':
        return run(main, new DshScanner());
      case 'cosh':
        return run(main, new CoshScanner());
      case 'gemini-cli':
        return scanGemini(main);
      case 'palimpsest':
        return run(main, new PalimpsestScanner());
      default:
        return failed(`unknown harness ${String(c.harness)}`);
    }
  } catch (e) {
    return failed(`${main}: the scan failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function run(path: string, s: { line(buf: Buffer, start: number, end: number): void; result(): ScanResult }): ScanResult {
  const r = scanFileSync(path, s);
  const out = s.result();
  return r.error === null ? out : { ...out, problems: [...out.problems, `${path}: ${r.error}`] };
}

/** A plain file, its lines taken a read at a time (./scan-file.ts scanLinesSync). */
function runLines(path: string, s: BlockScanner & { result(): ScanResult }): ScanResult {
  const r = scanLinesSync(path, s);
  const out = s.result();
  return r.error === null ? out : { ...out, problems: [...out.problems, `${path}: ${r.error}`] };
}

function failed(problem: string): ScanResult {
  return {
    id: null,
    project: null,
    title: null,
    startedAt: null,
    endedAt: null,
    requests: null,
    compactions: null,
    harnessVersion: null,
    model: null,
    badLines: 0,
    problems: [problem],
  };
}
