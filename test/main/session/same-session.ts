import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CompactLog } from '../../../src/main/session/compact-log';
import { SessionInspector } from '../../../src/main/session/inspector';
import { loadSession, type LoadOptions } from '../../../src/main/session/load';
import type { LoadedSession, SessionFile } from '../../../src/main/session/types';
import { kindAt, branchAt } from '../../../src/shared/model/event-log';
import { listBranches } from '../../../src/shared/replay/branches';
import { replay } from '../../../src/shared/replay/fold';
import { modelView } from '../../../src/shared/replay/view';

export type Outcome = { session: LoadedSession } | { error: unknown };

export async function loadOutcome(path: string, options: LoadOptions): Promise<Outcome> {
  try {
    return { session: await loadSession(path, options) };
  } catch (error) {
    return { error };
  }
}

/** A file as the loader describes it, less how it was read (in ranges or not), which two ways of loading may differ in. */
export function fileFacts(f: SessionFile): Omit<SessionFile, 'ranges'> {
  const { ranges: _ranges, ...rest } = f;
  return rest;
}

/**
 * Checks that nothing anyone can read differs between two loads of one session: the events at
 * every seq, their kinds and branches, where each came from, the diagnostics, the files, and
 * replay's model view at every request of every branch.
 */
export function expectSameSessions(got: LoadedSession, want: LoadedSession): void {
  expect(got.format).toBe(want.format);
  expect(got.files.map(fileFacts)).toEqual(want.files.map(fileFacts));
  expect(got.diagnostics).toEqual(want.diagnostics);
  const log = got.events;
  const events = want.events;
  expect(log.length).toBe(events.length);
  for (let seq = 0; seq < events.length; seq++) {
    expect(log.at(seq), `seq ${seq}`).toEqual(events.at(seq));
    expect(kindAt(log, seq)).toBe(events.at(seq)?.kind);
    expect(branchAt(log, seq)).toBe(events.at(seq)?.branch);
    expect(got.loc(seq)).toEqual(want.loc(seq));
  }
  for (const outside of [-1, -2, log.length, log.length + 1]) {
    expect(log.at(outside)).toBeUndefined();
    expect(kindAt(log, outside)).toBeUndefined();
    expect(branchAt(log, outside)).toBeUndefined();
    expect(got.loc(outside)).toBeNull();
  }
  expect([...log]).toEqual([...events]);
  for (const b of listBranches(events)) {
    const sw = replay(events, { branch: b.name });
    const sg = replay(log, { branch: b.name });
    expect(sg.diagnostics).toEqual(sw.diagnostics);
    expect(sg.requests.length).toBe(sw.requests.length);
    for (let i = 0; i < sw.requests.length; i++) expect(modelView(sg, i), `${b.name} request ${i}`).toEqual(modelView(sw, i));
  }
}

/**
 * Loads `path` both ways and checks they agree (or fail alike). Returns both sessions, disposed
 * once `then` has looked at them; null when the path does not load.
 */
export async function expectSameLoads<T>(
  path: string,
  got: LoadOptions,
  want: LoadOptions,
  then: (got: LoadedSession, want: LoadedSession) => T,
): Promise<T | null> {
  const [g, w] = [await loadOutcome(path, got), await loadOutcome(path, want)];
  if ('error' in g || 'error' in w) {
    expect(g).toEqual(w);
    return null;
  }
  try {
    expectSameSessions(g.session, w.session);
    return then(g.session, w.session);
  } finally {
    await g.session.dispose();
    await w.session.dispose();
  }
}

export function compactOf(session: LoadedSession): CompactLog {
  expect(session.events).toBeInstanceOf(CompactLog);
  return session.events as CompactLog;
}

/** Every session under fixtures/: files of any format, and Rind's session folders. */
export function fixtureSessions(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (d === 'fixtures/rind') out.push(p);
        walk(p);
      } else if (/\.jsonl(\.zstd?)?$|\.zst$/.test(name)) out.push(p);
    }
  };
  walk('fixtures');
  return out;
}

/** The fixture with the `seq` every line writes left out, written into `dir`: the same session, read by line order alone. */
export function withoutWrittenSeqs(path: string, dir: string): string {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => {
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v !== 'object' || v === null || Array.isArray(v)) return line;
        const { seq: _seq, ...rest } = v as Record<string, unknown>;
        return JSON.stringify(rest);
      } catch {
        return line;
      }
    });
  const out = join(dir, `noseq-${path.replaceAll('/', '_')}`);
  writeFileSync(out, lines.join('\n'));
  return out;
}

/**
 * Everything a session shows, as JSON, for comparing two: the events with where each came from, the
 * files, the diagnostics, and per branch its views, fates, findings and compactions. For a followed
 * or read-on session against a fresh load of the same bytes.
 */
export function shownOf(inspector: SessionInspector): unknown {
  const session = inspector.session;
  const events = [];
  for (let seq = 0; seq < session.events.length; seq++) events.push([session.events.at(seq), session.loc(seq)]);
  const branches = inspector.branches.map((b) => {
    const replay = inspector.replay(b.name);
    return {
      branch: b,
      diagnostics: inspector.diagnostics(b.name),
      views: replay.requests.map((_, i) => [inspector.view(i, b.name), inspector.fates(i, b.name)]),
      compactions: replay.compactions,
    };
  });
  return JSON.parse(
    JSON.stringify({
      format: session.format,
      files: session.files,
      diagnostics: session.diagnostics,
      events,
      defaultBranch: inspector.defaultBranch,
      branches,
    }),
  ) as unknown;
}

/**
 * The files, findings, events and their places of two loads: what a session is made of, for a log
 * of either kind (expectSameSessions also reads seqs out of range, which the array log answers as an
 * array does).
 */
export function expectSameEvents(got: LoadedSession, want: LoadedSession): void {
  expect(got.format).toBe(want.format);
  expect(got.files).toEqual(want.files);
  expect(got.diagnostics).toEqual(want.diagnostics);
  expect(got.events.length).toBe(want.events.length);
  expect([...got.events]).toEqual([...want.events]);
  for (let seq = 0; seq < want.events.length; seq++) expect(got.loc(seq), `seq ${seq}`).toEqual(want.loc(seq));
}
