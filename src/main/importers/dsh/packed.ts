import { type Obj, isObj, nat, num, str } from './json';
import type { DshEvent } from './decode';

/**
 * Packed chunk rows (chunk-rows.ts of DSH): one storage line for a run of ≥ 3 consecutive
 * same-block delta chunks. Member k is the `assistant/chunk` event with seq `seq0 + k` and time
 * `time0` plus the first k gaps of `dt`. DSH throws on a malformed row; here a row is expanded as
 * far as it can be and the problem is reported instead.
 */

export interface Expansion {
  readonly events: DshEvent[];
  /** What was wrong with the row, when something was. */
  readonly problem?: string;
}

const CHUNK_TYPE: Record<string, 'text-delta' | 'reasoning-delta' | 'tool-call-delta'> = {
  'text-chunks': 'text-delta',
  'reasoning-chunks': 'reasoning-delta',
  'tool-call-chunks': 'tool-call-delta',
};

export function expandPackedRow(row: Obj): Expansion {
  const tag = str(row.type) ?? '?';
  const chunkType = CHUNK_TYPE[tag];
  const data = row.data;
  if (!chunkType || !isObj(data)) return { events: [], problem: `${tag} row has no "data" object` };
  const toolCall = chunkType === 'tool-call-delta';
  const payload = toolCall ? data.args : data.texts;
  const key = toolCall ? 'args' : 'texts';
  if (!Array.isArray(payload) || payload.length === 0 || payload.some((m) => typeof m !== 'string')) {
    return { events: [], problem: `${tag} row: "${key}" must be a non-empty array of strings` };
  }
  const members = payload as string[];
  const problems: string[] = [];
  const turn = num(data.turn);
  const step = num(data.step);
  const index = num(data.index);
  if (turn === undefined || step === undefined || index === undefined) problems.push('turn/step/index must be numbers');
  const id = str(data.id);
  const name = str(data.name);
  if (toolCall && id === undefined) problems.push('"id" must be a string');

  const seq0 = row.seq0 === undefined ? undefined : nat(row.seq0);
  if (row.seq0 !== undefined && seq0 === undefined) problems.push('"seq0" must be a non-negative integer');
  const time0 = num(row.time0);
  const dt =
    Array.isArray(data.dt) && data.dt.every((g) => typeof g === 'number' && Number.isFinite(g)) ? (data.dt as number[]) : undefined;
  if (dt === undefined || dt.length !== members.length - 1) {
    problems.push(`"dt" must hold ${members.length - 1} gap${members.length === 2 ? '' : 's'} (one fewer than the members)`);
  }

  const events: DshEvent[] = [];
  let time = time0;
  for (let k = 0; k < members.length; k++) {
    if (k > 0) time = time !== undefined && dt !== undefined && dt[k - 1] !== undefined ? time + (dt[k - 1] as number) : undefined;
    const text = members[k] as string;
    let chunk: Obj;
    if (toolCall) {
      chunk = { type: chunkType, index, id };
      if (name !== undefined) chunk.name = name;
      chunk.argumentsDelta = text;
    } else {
      chunk = { type: chunkType, index, text };
    }
    events.push({
      type: 'assistant/chunk',
      seq: seq0 === undefined ? undefined : seq0 + k,
      time,
      data: { turn, step, chunk },
      ignorable: false,
      sourceEventSeqs: undefined,
      surfaceOp: undefined,
      packed: { row: tag, member: k },
    });
  }
  return problems.length > 0 ? { events, problem: `${tag} row: ${problems.join('; ')}` } : { events };
}
