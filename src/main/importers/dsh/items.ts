import type { Block } from '../../../shared/model/content';
import type { Role } from '../../../shared/model/item';
import type { DshEvent } from './decode';
import { mapBlocks } from './blocks';
import { type Obj, isObj, nat, str } from './json';

/**
 * Surface events (`user/message`, `assistant/message`, `tool/result`, and the newer
 * `system/message`) → the parts of a canonical item. Pure: rehydrate re-reads blocks through
 * `surfaceBlocks`, the same function the importer uses.
 */

/** Item ids are the DSH seq: stable, and what `surfaceOp.replace` and `shadowedSeqs` refer to. */
export function itemId(dshSeq: number): string {
  return `dsh:${dshSeq}`;
}

export const ROLE: Readonly<Record<string, Role>> = {
  'user/message': 'user',
  'assistant/message': 'assistant',
  'tool/result': 'tool',
  'system/message': 'system',
};

/** The DSH `Message` a surface event carries. */
function messageOf(ev: DshEvent): Obj | undefined {
  const data = isObj(ev.data) ? ev.data : undefined;
  if (!data) return undefined;
  switch (ev.type) {
    case 'user/message':
      // The payload is the UserMessage itself.
      return data;
    case 'system/message':
      // Known only from DeepSeek Harness's prose: accept the message itself or one wrapped in
      // `message`.
      return isObj(data.message) ? data.message : data;
    default:
      return isObj(data.message) ? data.message : undefined;
  }
}

/** The item's blocks, or undefined when the event has no content array. */
export function surfaceBlocks(ev: DshEvent, notes?: string[]): Block[] | undefined {
  const m = messageOf(ev);
  if (!m) return undefined;
  if (ev.type === 'system/message') {
    if (typeof m.content === 'string') return [{ type: 'text', text: m.content }];
    if (m.content === undefined && typeof m.text === 'string') return [{ type: 'text', text: m.text }];
  }
  return mapBlocks(m.content, notes);
}

/** `message.source` of a surface event. */
export function sourceOf(ev: DshEvent): Obj | undefined {
  const m = messageOf(ev);
  return m && isObj(m.source) ? m.source : undefined;
}

/**
 * What produced a user-role message, in DSH's words: `plugin:<name>` for plugin context
 * (runtime-context snapshots, compaction checkpoints, goal notices), the source kind otherwise
 * (`goal` rounds). A human prompt (`user`), model output and tool results have none.
 */
export function originOf(source: Obj | undefined): string | undefined {
  const kind = source ? str(source.kind) : undefined;
  if (kind === undefined || kind === 'user' || kind === 'model' || kind === 'tool') return undefined;
  if (kind === 'plugin') {
    const plugin = str(source?.plugin);
    return plugin === undefined ? 'plugin' : `plugin:${plugin}`;
  }
  return kind;
}

/** `{kind:'plugin', plugin:'compact', compactionId}`: the source of a compaction checkpoint. */
export function checkpointIdOf(source: Obj | undefined): string | undefined {
  if (!source || source.kind !== 'plugin' || source.plugin !== 'compact') return undefined;
  return str(source.compactionId);
}

export type DshSurfaceOp =
  | { readonly op: 'append' }
  | { readonly op: 'replace'; readonly start: number; readonly end: number }
  /** No surfaceOp: the event is in the log but not on the surface. */
  | { readonly op: 'log' }
  | { readonly op: 'invalid' };

export function readSurfaceOp(raw: unknown): DshSurfaceOp {
  if (raw === undefined) return { op: 'log' };
  if (raw === 'append') return { op: 'append' };
  if (isObj(raw) && raw.op === 'replace') {
    const start = nat(raw.start);
    const end = nat(raw.end);
    if (start !== undefined && end !== undefined) return { op: 'replace', start, end };
  }
  return { op: 'invalid' };
}
