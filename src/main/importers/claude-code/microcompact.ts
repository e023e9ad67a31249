import type { EventOf } from '../../../shared/model/event';
import { registerRecord } from './dag';
import type { ClaudeFile } from './file';
import { type Obj, obj, str } from './json';
import { branchFor } from './placement';
import { toArray } from './surface';

/**
 * `system/microcompact_boundary` (tool-result clearing, see ./importer.ts, COMPACTION): a `mask`
 * by the harness of the live items answering `compactedToolIds`. The tool_result stays on the
 * wire with cleared content, so it is a mask, not a drop; the log does not record the placeholder.
 */
export function microcompact(f: ClaudeFile, v: Obj): void {
  const b = branchFor(f, registerRecord(f, v));
  const mm = obj(v.microcompactMetadata);
  const ids = new Set<string>();
  if (Array.isArray(mm?.compactedToolIds)) for (const x of mm.compactedToolIds) if (typeof x === 'string') ids.add(x);
  const items = toArray(b.node)
    .filter((n) => n.calls?.some((c) => ids.has(c)))
    .map((n) => n.id);
  const at = str(v.timestamp);
  if (items.length > 0) {
    const m: EventOf<'mask'> = { kind: 'mask', items, masked: true, by: 'harness' };
    if (at !== undefined) m.at = at;
    f.emit(b, m);
  } else {
    if (ids.size > 0)
      f.report(
        'CC_MICROCOMPACT_UNMATCHED',
        'info',
        `Line ${f.cur.line}: none of the ${ids.size} tool results this microcompact clears is in the view of branch ${b.name}.`,
      );
    const r: EventOf<'record'> = { kind: 'record', type: 'system/microcompact_boundary' };
    if (at !== undefined) r.at = at;
    f.emit(b, r);
  }
}
