import { type Obj, isObj, str } from './json';
import { RESPONSE_ITEM_TYPES } from './known';

/**
 * One rollout line, normalised. Current rollouts are `{timestamp, type, payload}` (`RolloutLine`
 * with the serde-tagged `RolloutItem`). The first rollouts (spring 2025) wrote a bare header
 * `{id, timestamp, instructions?, git?}` on line 1, then bare `ResponseItem`s and
 * `{record_type: "state"}` lines; they are read as `session_meta`, `response_item` and `state`.
 */
export interface RolloutRecord {
  /** The record type; `''` when the line has none. */
  readonly type: string;
  readonly payload: unknown;
  readonly timestamp: string | undefined;
}

export function classify(v: Obj, firstLine: boolean): RolloutRecord {
  const timestamp = str(v.timestamp);
  const type = str(v.type);
  if (v.payload !== undefined || (type !== undefined && !RESPONSE_ITEM_TYPES.has(type))) {
    return { type: type ?? '', payload: v.payload, timestamp };
  }
  if (type !== undefined) return { type: 'response_item', payload: v, timestamp };
  if (v.record_type !== undefined) return { type: 'state', payload: v, timestamp };
  if (firstLine && typeof v.id === 'string' && (typeof v.timestamp === 'string' || v.instructions !== undefined)) {
    return { type: 'session_meta', payload: v, timestamp };
  }
  return { type: '', payload: undefined, timestamp };
}

/** The payload's own `type`, when it is an object that has one. */
export function payloadType(r: RolloutRecord): string | undefined {
  return isObj(r.payload) ? str(r.payload.type) : undefined;
}
