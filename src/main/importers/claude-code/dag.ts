import type { Severity } from '../../../shared/model/diagnostic';
import type { FileInfo } from '../types';
import type { ClaudeFile } from './file';
import type { ClaudeSession } from './importer';
import { type Obj, id } from './json';
import { NO_ANCHOR, type Parent, Skel } from './skeleton';

/*
 * The uuid/parentUuid DAG: every record's uuid, mapped to its skeleton (conversation records) or
 * to its nearest conversation ancestor (every other record); parents resolved through it, and
 * the references that named no record (missing, forward, cycles) reported at the end of the
 * session. Which branch a record goes on is ./placement.ts.
 */

/** Missing-parent references remembered for the end-of-session check, at most. */
const MAX_REFS = 10_000;

export interface MissingRef {
  readonly file: FileInfo;
  readonly line: number;
  readonly uuid: string;
  readonly skel: Skel | null;
  readonly logical: boolean;
}

export function resolve(f: ClaudeFile, parentUuid: unknown): Parent {
  const p = id(parentUuid);
  if (p === undefined) return { state: 'root' };
  const s = f.s.uuids.get(p);
  return s === undefined ? { state: 'missing', uuid: p } : { state: 'found', anchor: s.anchor };
}

/**
 * Remember a conversation record. Returns its skeleton, null without uuid, or 'duplicate' when
 * the uuid was seen before (the first record stands).
 */
export function register(f: ClaudeFile, v: Obj, logical = false): Skel | null | 'duplicate' {
  const uuid = id(v.uuid);
  const p = id(v.parentUuid);
  const parent = p === undefined ? null : (lookup(f, p) ?? null);
  const missing = p !== undefined && !parent && !logical;
  const s = f.s;
  if (uuid === undefined || s.uuids.has(uuid)) {
    if (missing) rememberMissing(f, p, null, false);
    return uuid === undefined ? null : duplicate(f, uuid);
  }
  const skel = new Skel(uuid, s.order++, f.info.index, f.cur.line, parent);
  skel.anchor = skel;
  s.uuids.set(uuid, skel);
  f.lastUuid = uuid;
  f.lastEntry = skel;
  if (missing) rememberMissing(f, p, skel, false);
  return skel;
}

/** The entry of a uuid; most records hang off the line just before them, so that one is cached. */
function lookup(f: ClaudeFile, uuid: string): Skel | undefined {
  return uuid === f.lastUuid ? f.lastEntry : f.s.uuids.get(uuid);
}

/**
 * Remember a record that is not a conversation node (progress, system lines…): no skeleton of
 * its own, its uuid maps to its nearest conversation ancestor (70 % of a real transcript's lines
 * are such records; allocating nothing for them keeps the import fast).
 */
export function registerRecord(f: ClaudeFile, v: Obj): Skel | null {
  const uuid = id(v.uuid);
  const p = id(v.parentUuid);
  let anchor: Skel = NO_ANCHOR;
  if (p !== undefined) {
    const parent = lookup(f, p);
    if (parent) anchor = parent.anchor ?? NO_ANCHOR;
    else rememberMissing(f, p, null, false);
  }
  if (uuid !== undefined) {
    const map = f.s.uuids;
    if (map.has(uuid)) duplicate(f, uuid);
    else {
      map.set(uuid, anchor);
      f.lastUuid = uuid;
      f.lastEntry = anchor;
    }
  }
  return anchor.anchor;
}

function duplicate(f: ClaudeFile, uuid: string): 'duplicate' {
  if (f.copiesConversation) return 'duplicate';
  const seen = f.s.uuids.get(uuid);
  f.findings.duplicate(f.cur.line, seen?.uuid === uuid ? seen.line : 0);
  return 'duplicate';
}

export function rememberMissing(f: ClaudeFile, uuid: string, skel: Skel | null, logical: boolean): void {
  if (f.s.missing.length < MAX_REFS) f.s.missing.push({ file: f.info, line: f.cur.line, uuid, skel, logical });
}

/** Where a registered conversation record hangs. */
export function parentOf(v: Obj, skel: Skel): Parent {
  const p = id(v.parentUuid);
  if (p === undefined) return { state: 'root' };
  if (!skel.parent) return { state: 'missing', uuid: p };
  return { state: 'found', anchor: skel.parent.anchor };
}

/** Missing parents that turned up later (forward references), and cycles through them. */
export function checkReferences(s: ClaudeSession): void {
  const byFile = new Map<
    FileInfo,
    { missing: MissingRef[]; forward: MissingRef[]; cycles: MissingRef[]; logical: MissingRef[]; logicalLater: MissingRef[] }
  >();
  const forwardTarget = new Map<Skel, Skel>();
  for (const m of s.missing) {
    const later = s.uuids.get(m.uuid);
    if (later && m.skel) forwardTarget.set(m.skel, later);
  }
  for (const m of s.missing) {
    let g = byFile.get(m.file);
    if (!g) {
      g = { missing: [], forward: [], cycles: [], logical: [], logicalLater: [] };
      byFile.set(m.file, g);
    }
    const later = s.uuids.get(m.uuid);
    if (m.logical) {
      (later ? g.logicalLater : g.logical).push(m);
      continue;
    }
    if (!later) {
      g.missing.push(m);
      continue;
    }
    if (m.skel && leadsBack(later, m.skel, forwardTarget)) g.cycles.push(m);
    else g.forward.push(m);
  }
  const list = (ms: MissingRef[]): string =>
    ms
      .slice(0, 5)
      .map((m) => `line ${m.line} (${m.uuid.slice(0, 13)})`)
      .join(', ') + (ms.length > 5 ? ', …' : '');
  for (const [file, g] of byFile) {
    const report = (rule: string, severity: Severity, ms: MissingRef[], one: string, many: string): void => {
      const first = ms[0];
      if (!first) return;
      const text = ms.length === 1 ? `1 record ${one}` : `${ms.length} records ${many}`;
      s.sink.diagnostic({ rule, severity, file: file.path, line: first.line, seqs: [], message: `${text}: ${list(ms)}.` });
    };
    report(
      'CC_MISSING_PARENT',
      'warning',
      g.missing,
      'names a parentUuid that is in no file of the session; it is placed after the record before it in the file',
      'name a parentUuid that is in no file of the session; each is placed after the record before it in the file',
    );
    report(
      'CC_FORWARD_PARENT',
      'info',
      g.forward,
      'names a parent written later in the session; it was placed after the record before it in the file',
      'name a parent written later in the session; each was placed after the record before it in the file',
    );
    report(
      'CC_PARENT_CYCLE',
      'warning',
      g.cycles,
      'sits on a cycle of parentUuid links (following the parents leads back to it); it was placed in file order',
      'sit on a cycle of parentUuid links (following the parents leads back to the record); each was placed in file order',
    );
    report(
      'CC_LOGICAL_PARENT_MISSING',
      'warning',
      g.logical,
      'is a compaction boundary whose logicalParentUuid is in no file of the session; it continues the branch of the record before it in the file',
      'are compaction boundaries whose logicalParentUuid is in no file of the session; each continues the branch of the record before it in the file',
    );
    report(
      'CC_LOGICAL_PARENT_LATER',
      'info',
      g.logicalLater,
      'is a compaction boundary whose logicalParentUuid is written later in the file (a preserved message re-linked after the summary); it continues the branch of the record before it in the file',
      'are compaction boundaries whose logicalParentUuid is written later in the file (preserved messages re-linked after the summary); each continues the branch of the record before it in the file',
    );
  }
}

/** True when following parents (and forward references) from `from` reaches `target`. */
function leadsBack(from: Skel, target: Skel, forward: ReadonlyMap<Skel, Skel>): boolean {
  const seen = new Set<Skel>();
  let s: Skel | null | undefined = from;
  while (s && !seen.has(s)) {
    if (s === target) return true;
    seen.add(s);
    s = s.parent ?? forward.get(s);
  }
  return false;
}
