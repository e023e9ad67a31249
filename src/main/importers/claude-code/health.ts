import type { EventOf } from '../../../shared/model/event';
import { registerRecord } from './dag';
import type { ClaudeFile } from './file';
import { type Obj, str } from './json';
import { compareVersions, newerThanVerified, newestVerified } from '../../../shared/compat/newest';
import { KNOWN_FIELDS, LAST_VERSION_WITHOUT_API_REQUESTS } from './known';
import { branchFor } from './placement';
import { recoversParallelResults } from '../../dialects/claude-resume';

// Format health (see ./importer.ts, FORMAT HEALTH): unknown fields and record types, newer versions.

export function health(f: ClaudeFile, v: Obj): void {
  for (const k in v) if (!KNOWN_FIELDS.has(k)) f.findings.unknownField(k, f.cur.line);
  const version = v.version;
  if (typeof version === 'string' && version !== f.lastVersion) {
    f.lastVersion = version;
    const old = compareVersions(version, LAST_VERSION_WITHOUT_API_REQUESTS);
    f.hashMessages = old === null || old > 0;
    f.reloadMayDrop = !recoversParallelResults(version);
    // The newest version the fidelity suite ran on the wire (src/shared/compat/versions.ts).
    if (newerThanVerified('claude-code', version) && f.findings.newerVersion()) {
      f.report(
        'CC_VERSION_NEWER',
        'warning',
        `Line ${f.cur.line}: Claude Code ${version} is newer than ${newestVerified('claude-code') ?? '?'}, the newest version verified on the wire (docs/compatibility.md); records this importer does not know are counted below.`,
      );
    }
  }
}

export function unknownRecord(f: ClaudeFile, type: string, v: Obj): void {
  const b = branchFor(f, registerRecord(f, v));
  const e: EventOf<'unknown'> = { kind: 'unknown', type };
  const at = str(v.timestamp);
  if (at !== undefined) e.at = at;
  f.findings.unknownType(type, f.cur.line, f.emit(b, e));
}
