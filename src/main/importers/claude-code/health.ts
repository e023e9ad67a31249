import type { EventOf } from '../../../shared/model/event';
import { registerRecord } from './dag';
import type { ClaudeFile } from './file';
import { type Obj, str } from './json';
import { KNOWN_FIELDS, LAST_VERSION_WITHOUT_API_REQUESTS, NEWEST_KNOWN_VERSION, compareVersions } from './known';
import { branchFor } from './placement';

// Format health (see ./importer.ts, FORMAT HEALTH): unknown fields and record types, newer versions.

export function health(f: ClaudeFile, v: Obj): void {
  for (const k in v) if (!KNOWN_FIELDS.has(k)) f.count(f.unknownFields, `field "${k}"`);
  const version = v.version;
  if (typeof version === 'string' && version !== f.lastVersion) {
    f.lastVersion = version;
    const old = compareVersions(version, LAST_VERSION_WITHOUT_API_REQUESTS);
    f.hashMessages = old === null || old > 0;
    const cmp = compareVersions(version, NEWEST_KNOWN_VERSION);
    if (cmp !== null && cmp > 0 && !f.versionWarned) {
      f.versionWarned = true;
      f.report('CC_VERSION_NEWER', 'warning', `Line ${f.cur.line}: Claude Code ${version} is newer than ${NEWEST_KNOWN_VERSION}, the newest version this importer knows; records it does not know are counted below.`);
    }
  }
}

export function unknownRecord(f: ClaudeFile, type: string, v: Obj): void {
  const b = branchFor(f, registerRecord(f, v));
  const e: EventOf<'unknown'> = { kind: 'unknown', type };
  const at = str(v.timestamp);
  if (at !== undefined) e.at = at;
  f.count(f.unknownTypes, type, f.emit(b, e));
}
