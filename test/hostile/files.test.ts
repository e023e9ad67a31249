import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SessionRegistry } from '../../src/main/api/sessions';
import { walkRoot } from '../../src/main/discovery/walk';
import { scanFileSync } from '../../src/main/discovery/scan-file';
import { readStructured } from '../../src/main/eval/files';
import { EvalPaths } from '../../src/main/eval/paths';
import { readResults } from '../../src/main/eval/results-file';
import { canonicalPath } from '../../src/main/files/canonical';
import { openRegular } from '../../src/main/files/open-regular';
import { Library } from '../../src/main/library/library';
import { readJsonl } from '../../src/main/reader';
import { readRuns } from '../../src/main/rerun/sidecar';
import { loadSession } from '../../src/main/session/load';
import { sessionsUnder } from '../../src/main/session/targets';
import type { Diagnostic } from '../../src/shared/model/diagnostic';
import { Fifos, scratch } from './fifos';

/*
 * Files that are not regular files, and symbolic links. A FIFO opened for reading waits for a
 * writer; these cases would hang without the checks, so each has a time limit, and every FIFO a
 * test made is given a writer afterwards (opened non-blocking), which releases any read the code
 * under test left waiting on it.
 */

const LIMIT = 5_000;
const CLAUDE_SESSION = 'fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569';
const RIND_SESSION = 'fixtures/rind/20260514_101500_a1b2c3d4';

const fifos = new Fifos();
const fifo = (path: string): string => fifos.make(path);
const dirs = scratch('palimpsest-hostile-files-');
const { fresh } = dirs;

afterEach(() => fifos.release());
afterAll(() => dirs.remove());

describe('a FIFO or a device is never read', () => {
  it('the reader reports a FIFO as such instead of waiting for a writer', { timeout: LIMIT }, async () => {
    const f = fifo(join(fresh('reader'), 'session.jsonl'));
    const diagnostics: Diagnostic[] = [];
    const stats = await readJsonl(
      f,
      () => undefined,
      (d) => void diagnostics.push(d),
    );
    expect(stats.bytes).toBe(0);
    expect(diagnostics).toEqual([expect.objectContaining({ rule: 'READ_IO', message: `${f} is a FIFO, not a regular file.` })]);
  });

  it('openRegular refuses a character device without reading it', { timeout: LIMIT }, async () => {
    await expect(openRegular('/dev/zero')).rejects.toThrow('/dev/zero is a character device, not a regular file');
  });

  it('a session given as a FIFO is refused with its path and what it is', { timeout: LIMIT }, async () => {
    const f = fifo(join(fresh('session-fifo'), 'session.jsonl'));
    await expect(loadSession(f)).rejects.toThrow(`${f} is a FIFO, not a regular file`);
  });

  it('a session given as a device (/dev/zero, endless) is refused', { timeout: LIMIT }, async () => {
    await expect(loadSession('/dev/zero', { format: 'palimpsest' })).rejects.toThrow('/dev/zero is a character device, not a regular file');
  });

  it("a FIFO among a Claude Code session's subagents is reported by name and the rest loads", { timeout: LIMIT }, async () => {
    const dir = fresh('claude');
    cpSync(CLAUDE_SESSION, join(dir, 'sid'), { recursive: true });
    cpSync(`${CLAUDE_SESSION}.jsonl`, join(dir, 'sid.jsonl'));
    const f = fifo(join(dir, 'sid', 'subagents', 'agent-zzfifo.jsonl'));
    const session = await loadSession(join(dir, 'sid.jsonl'));
    try {
      expect(session.diagnostics).toContainEqual(
        expect.objectContaining({ rule: 'READ_IO', file: f, message: `${f} is a FIFO, not a regular file.` }),
      );
      // The main file and the real subagents were read.
      expect(session.files.filter((x) => x.stats.bytes > 0).map((x) => x.path)).toHaveLength(3);
      expect(session.events.length).toBeGreaterThan(0);
    } finally {
      await session.dispose();
    }
  });

  it('a Rind session whose meta.json and companions are FIFOs loads without them, naming each', { timeout: LIMIT }, async () => {
    const dir = fresh('rind');
    cpSync(RIND_SESSION, join(dir, 's'), { recursive: true });
    for (const name of ['meta.json', 'tool_calls.jsonl', 'compactions.jsonl']) {
      rmSync(join(dir, 's', name));
      fifo(join(dir, 's', name));
    }
    // The messages file alone: its companions are then read by the importer itself.
    const alone = await loadSession(join(dir, 's', 'messages.jsonl'), { format: 'rind' });
    // The directory: the loader reads the companions, through the reader.
    const whole = await loadSession(join(dir, 's'), { format: 'rind' });
    try {
      for (const session of [alone, whole]) {
        expect(session.events.length).toBeGreaterThan(0);
        const named = (name: string) =>
          session.diagnostics.some((d) => d.message.includes(name) && d.message.includes('is a FIFO, not a regular file'));
        for (const name of ['meta.json', 'tool_calls.jsonl', 'compactions.jsonl']) expect(named(name), name).toBe(true);
      }
    } finally {
      await alone.dispose();
      await whole.dispose();
    }
  });

  it('discovery skips a FIFO named like a session and says so; its scan refuses one', { timeout: LIMIT }, () => {
    const dir = fresh('walk');
    cpSync('fixtures/palimpsest/basic.jsonl', join(dir, 'basic.jsonl'));
    const f = fifo(join(dir, 'pipe.jsonl'));
    const walked = walkRoot({ harness: 'palimpsest', path: dir, source: 'folder' });
    expect(walked.candidates.map((c) => c.path)).toEqual([join(dir, 'basic.jsonl')]);
    expect(walked.problems).toContain(`${f} is a FIFO, not a regular file; skipped`);
    expect(scanFileSync(f, { line: () => undefined }).error).toBe(`${f} is a FIFO, not a regular file`);
  });

  it('discovery names a DeepSeek Harness session.jsonl that is a FIFO', { timeout: LIMIT }, () => {
    const root = fresh('dsh-root');
    const good = join(root, 'project', 'good');
    const bad = join(root, 'project', 'bad');
    cpSync('fixtures/diagnostics/SUMMARY_NOT_SMALLER/pass.dsh.jsonl', join(good, 'session.jsonl'));
    mkdirSync(bad, { recursive: true });
    const f = fifo(join(bad, 'session.jsonl'));
    const walked = walkRoot({ harness: 'dsh', path: root, source: 'folder' });
    expect(walked.candidates.map((c) => c.path)).toEqual([join(good, 'session.jsonl')]);
    expect(walked.problems).toContain(`${f} is a FIFO, not a regular file; skipped`);
  });

  it('the host refuses to open a FIFO in a folder it serves', { timeout: LIMIT }, async () => {
    const dir = fresh('host');
    const f = fifo(join(dir, 'pipe.jsonl'));
    const registry = new SessionRegistry({ allow: new Library({ folders: [dir], machine: false }) });
    await expect(registry.open(f)).rejects.toThrow(`${f} is a FIFO, not a regular file.`);
  });

  it('eval results, specs and re-run results that are FIFOs are refused, not waited on', { timeout: LIMIT }, async () => {
    const dir = fresh('eval');
    const results = fifo(join(dir, 'results.jsonl'));
    const spec = fifo(join(dir, 'spec.yaml'));
    const runs = fifo(join(dir, 'x.runs.jsonl'));
    expect((await readResults(results)).problems.join('\n')).toContain(`${results} is a FIFO, not a regular file`);
    const s = await readStructured(spec);
    expect(s.ok ? '' : s.error).toBe(`${spec} is a FIFO, not a regular file`);
    await expect(readRuns(runs)).rejects.toThrow(`${runs} is a FIFO, not a regular file`);
  });
});

describe('symbolic links', () => {
  let served: string;
  let outside: string;
  beforeAll(() => {
    served = fresh('served');
    outside = fresh('outside');
    symlinkSync(outside, join(served, 'out'));
    symlinkSync(join(outside, 'new.jsonl'), join(served, 'dangling.jsonl'));
    symlinkSync(join(served, 'loop-b.jsonl'), join(served, 'loop-a.jsonl'));
    symlinkSync(join(served, 'loop-a.jsonl'), join(served, 'loop-b.jsonl'));
  });

  it('canonicalPath resolves the parent of a file that does not exist yet, and a dangling link', async () => {
    const realOutside = await canonicalPath(outside);
    expect(await canonicalPath(join(served, 'out', 'new.jsonl'))).toBe(join(realOutside, 'new.jsonl'));
    expect(await canonicalPath(join(served, 'out', 'a', 'b', 'new.jsonl'))).toBe(join(realOutside, 'a', 'b', 'new.jsonl'));
    expect(await canonicalPath(join(served, 'dangling.jsonl'))).toBe(join(realOutside, 'new.jsonl'));
    // A loop stays where its link is (opening it fails whatever the policy says).
    expect(await canonicalPath(join(served, 'loop-a.jsonl'))).toMatch(/loop-[ab]\.jsonl$/);
  });

  it('eval results are not written outside a served folder through a symlinked folder', async () => {
    const library = new Library({ folders: [served], machine: false });
    const paths = new EvalPaths(library, [], { PALIMPSEST_DATA_DIR: join(dirs.base, 'data') });
    const viaLink = join(served, 'out', 'results.jsonl');
    expect(await library.allows(viaLink)).toBe(false);
    const w = await paths.write(viaLink);
    expect(w.ok).toBe(false);
    expect(w.ok ? '' : w.message).toContain('Not allowed to write results');
    // Nor through a link whose target does not exist yet.
    expect((await paths.write(join(served, 'dangling.jsonl'))).ok).toBe(false);
    // A new file really inside is still allowed.
    expect(await paths.write(join(served, 'mine.jsonl'))).toEqual({ ok: true, path: join(served, 'mine.jsonl') });
    expect(existsSync(join(outside, 'results.jsonl'))).toBe(false);
  });

  it('eval results are not written outside the data folder through a symlinked results folder', async () => {
    const data = fresh('data');
    mkdirSync(join(data, 'evals'));
    symlinkSync(outside, join(data, 'evals', 'out'));
    const paths = new EvalPaths(new Library({ machine: false }), [], { PALIMPSEST_DATA_DIR: data });
    expect((await paths.write(join(data, 'evals', 'out', 'r.jsonl'))).ok).toBe(false);
    expect((await paths.write(join(data, 'evals', 'r.jsonl'))).ok).toBe(true);
  });

  it('a symbolic link loop is reported as a loop, not as a missing file', { timeout: LIMIT }, async () => {
    const loop = join(served, 'loop-a.jsonl');
    await expect(loadSession(loop)).rejects.toThrow(`${loop} is a symbolic link loop`);
    const registry = new SessionRegistry({ allow: new Library({ folders: [served], machine: false }) });
    await expect(registry.open(loop)).rejects.toThrow(`${loop} is a symbolic link loop.`);
    const diagnostics: Diagnostic[] = [];
    await readJsonl(
      loop,
      () => undefined,
      (d) => void diagnostics.push(d),
    );
    expect(diagnostics[0]?.message).toBe(`${loop} is a symbolic link loop.`);
  });

  it('a folder holding a loop lists it (so that loading it says so) and discovery names it', async () => {
    const found = await sessionsUnder(served);
    expect(found).toEqual(expect.arrayContaining([join(served, 'loop-a.jsonl'), join(served, 'loop-b.jsonl')]));
    const walked = walkRoot({ harness: 'palimpsest', path: served, source: 'folder' });
    expect(walked.problems).toContain(`${join(served, 'loop-a.jsonl')} is a symbolic link loop; skipped`);
  });

  it('a session folder given as a path through a loop says loop', async () => {
    await expect(loadSession(join(served, 'loop-a.jsonl', 'x.jsonl'))).rejects.toThrow('symbolic link loop');
  });
});
