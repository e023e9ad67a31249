import type { ToolCallBlock } from '../../model/content';
import type { SourceItem } from '../types';

/*
 * cosh: "Changed-file observations must be marked stale." The prompt asks the model to do it;
 * this is the deterministic side: from the tool calls themselves, which files were observed in the
 * compacted prefix and changed later (in the prefix or in the raw tail). The result is reported in
 * the strategy's notes, with whether the installed handoff mentions each such path.
 */

export interface StaleObservation {
  readonly path: string;
  /** Item index of the read (the observation). */
  readonly readAt: number;
  /** Item index of the first later change. */
  readonly changedAt: number;
}

type Access = 'read' | 'write';

const PATH_KEYS = ['path', 'file_path', 'filePath', 'file', 'filename', 'target_file', 'notebook_path', 'absolute_path'];
const WRITE_NAME = /write|edit|patch|replace|create|insert|delete|remove|move|rename|apply/i;
const READ_NAME = /read|view|cat|open|show|get_?file|inspect/i;
const WRITE_COMMAND = /^(create|str_replace|insert|write|edit|delete|undo_edit)$/i;
const PATCH_FILE = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/gm;

function parseInput(input: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(input);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    // Arguments that are not a JSON object name no file we can recognise; such a call is skipped.
    return null;
  }
}

/** The files a tool call touches and how, recognised from common tool shapes (read/write/edit/apply_patch). */
export function fileAccesses(call: ToolCallBlock): { path: string; access: Access }[] {
  const args = parseInput(call.input);
  const patched = [
    ...(typeof args?.['patch'] === 'string' ? args['patch'] : typeof args?.['input'] === 'string' ? args['input'] : call.input).matchAll(
      PATCH_FILE,
    ),
  ];
  if (patched.length > 0) return patched.map((m) => ({ path: (m[1] ?? '').trim(), access: 'write' as const }));
  if (!args) return [];
  const key = PATH_KEYS.find((k) => typeof args[k] === 'string' && (args[k] as string).length > 0);
  if (!key) return [];
  const path = args[key] as string;
  const command = typeof args['command'] === 'string' ? args['command'] : null;
  if (command !== null) return [{ path, access: WRITE_COMMAND.test(command) ? 'write' : 'read' }];
  if (WRITE_NAME.test(call.name)) return [{ path, access: 'write' }];
  if (READ_NAME.test(call.name)) return [{ path, access: 'read' }];
  return [];
}

/** Reads in items [from, to] of a path that a later item (anywhere after, up to the end) changes. */
export function staleObservations(items: readonly SourceItem[], from: number, to: number): StaleObservation[] {
  const reads = new Map<string, number[]>();
  const out: StaleObservation[] = [];
  for (let i = 0; i < items.length; i++) {
    for (const b of (items[i] as SourceItem).blocks) {
      if (b.type !== 'tool_call') continue;
      for (const { path, access } of fileAccesses(b)) {
        if (access === 'read') {
          if (i >= from && i <= to) reads.set(path, [...(reads.get(path) ?? []), i]);
          continue;
        }
        for (const readAt of reads.get(path) ?? []) out.push({ path, readAt, changedAt: i });
        reads.delete(path);
      }
    }
  }
  return out.sort((a, b) => a.readAt - b.readAt);
}

/** Notes for the result: each stale observation, and whether the handoff mentions its path at all. */
export function staleNotes(stale: readonly StaleObservation[], summary: string): string[] {
  return stale.map((s) => {
    const mentioned = summary.includes(s.path);
    return `stale observation: ${s.path} read at #${s.readAt}, changed at #${s.changedAt}${mentioned ? '' : ' — the handoff does not mention this path'}`;
  });
}
