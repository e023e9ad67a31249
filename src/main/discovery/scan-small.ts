import { readRegularFileSync } from '../files/open-regular';
import { join } from 'node:path';
import { objectBounds, parseObject } from './json-bytes';
import type { LineScanner } from './scan-file';
import { scanFileSync } from './scan-file';
import type { ScanResult } from './types';

/*
 * The harnesses whose logs are small and few (DeepSeek Harness, cosh, Rind, Palimpsest v1): every
 * line is JSON.parse-d, but no event log is built; a few counters follow the rules of each full
 * importer (src/main/importers/<harness>). Where a rule is simplified, it says so.
 */

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** Time of an epoch in ms or s as ISO 8601. */
function iso(x: unknown): string | undefined {
  if (typeof x === 'string') return x;
  const n = num(x);
  if (n === undefined || n <= 0) return undefined;
  const ms = n < 1e12 ? n * 1000 : n;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** What every scanner of one-object-per-line sessions keeps: the listing's fields and bad lines. */
export abstract class ParsedScanner implements LineScanner {
  protected bad = 0;
  protected id: string | null = null;
  protected project: string | null = null;
  protected title: string | null = null;
  protected version: string | null = null;
  protected model: string | null = null;
  protected startedAt: string | null = null;
  protected endedAt: string | null = null;

  line(buf: Buffer, start: number, end: number): void {
    const b = objectBounds(buf, start, end);
    const v = b ? parseObject(buf, b[0], b[1] + 1) : null;
    if (!v) {
      if (buf.toString('latin1', start, end).trim() !== '') this.bad++;
      return;
    }
    this.value(v);
  }

  protected abstract value(v: Record<string, unknown>): void;

  protected time(t: unknown): void {
    const at = iso(t);
    if (at === undefined) return;
    this.startedAt ??= at;
    this.endedAt = at;
  }

  protected out(requests: number | null, compactions: number | null, problems: string[] = []): ScanResult {
    return {
      id: this.id,
      project: this.project,
      title: this.title,
      startedAt: this.startedAt,
      endedAt: this.endedAt,
      requests,
      compactions,
      harnessVersion: this.version,
      model: this.model,
      badLines: this.bad,
      problems,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// DeepSeek Harness.

/**
 * DSH (src/main/importers/dsh/requests.ts): a model call starts at the first `assistant/chunk`
 * (packed chunk rows included) when none is open for that turn and step; its `finish` chunk, a
 * new `step/start`, the step's `assistant/message`, or a chunk of another step ends it. A
 * `compaction/summary` with `llmStreamCall: true` or usage is the summarizer's call. Compactions
 * are `compaction/start` events. Stream-json wrappers (`{type: "session_event", event}`) are
 * unwrapped.
 */
export class DshScanner extends ParsedScanner {
  private open: { turn: unknown; step: unknown } | null = null;
  private requests = 0;
  private compactions = 0;

  protected value(v: Record<string, unknown>): void {
    const ev = v.type === 'session_event' && isObj(v.event) ? v.event : v;
    const type = str(ev.type);
    if (type === undefined) return;
    if (type === 'session') {
      if (this.id === null) {
        this.id = str(ev.id) ?? null;
        this.project = str(ev.cwd) ?? null;
        this.time(ev.createdAt);
      }
      return;
    }
    this.time(ev.time ?? ev.time0);
    const d = isObj(ev.data) ? ev.data : {};
    const chunkRow = type === 'text-chunks' || type === 'reasoning-chunks' || type === 'tool-call-chunks';
    if (type === 'assistant/chunk' || chunkRow) {
      const turn = d.turn;
      const step = d.step;
      if (this.open && (this.open.turn !== turn || this.open.step !== step)) this.open = null;
      if (!this.open) {
        this.open = { turn, step };
        this.requests++;
      }
      if (!chunkRow && isObj(d.chunk) && d.chunk.type === 'finish') this.open = null;
      return;
    }
    if (type === 'step/start') this.open = null;
    else if (type === 'assistant/message') {
      if (this.open && this.open.turn === d.turn && this.open.step === d.step) this.open = null;
    } else if (type === 'compaction/start') this.compactions++;
    else if (type === 'compaction/summary') {
      if (d.llmStreamCall === true || isObj(d.usage)) this.requests++;
    } else if (type === 'request/context' || type === 'request/header') {
      const cfg = type === 'request/header' && isObj(d.header) && isObj(d.header.config) ? d.header.config : d;
      const m = str(cfg.model);
      if (m !== undefined) this.model = m;
    }
  }

  result(): ScanResult {
    return this.out(this.requests, this.compactions);
  }
}

// ---------------------------------------------------------------------------------------------
// Branch histories by reference (cosh, Palimpsest v1).

interface Point<S> {
  readonly at: number;
  readonly state: S;
}

/**
 * The history of each branch as a list of states after each of its events; a fork, revert or
 * rollback starts from the state of the branch it names as of the event it names (the last event
 * of that branch at or before it). The default branch is the branch of the newest event.
 */
class Histories<S> {
  private readonly branches = new Map<string, Point<S>[]>();
  newest: { branch: string; at: number } | null = null;

  constructor(private readonly empty: () => S) {}

  /** The state of `branch` as of event `at` (inclusive); the empty state when it has none. */
  at(branch: string, at: number): S {
    const pts = this.branches.get(branch);
    if (!pts || pts.length === 0) return this.empty();
    let lo = 0;
    let hi = pts.length - 1;
    if ((pts[0] as Point<S>).at > at) return this.empty();
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((pts[mid] as Point<S>).at <= at) lo = mid;
      else hi = mid - 1;
    }
    return (pts[lo] as Point<S>).state;
  }

  head(branch: string): S {
    const pts = this.branches.get(branch);
    return pts && pts.length > 0 ? (pts[pts.length - 1] as Point<S>).state : this.empty();
  }

  push(branch: string, at: number, state: S): void {
    let pts = this.branches.get(branch);
    if (!pts) this.branches.set(branch, (pts = []));
    pts.push({ at, state });
    if (!this.newest || at >= this.newest.at) this.newest = { branch, at };
  }
}

// ---------------------------------------------------------------------------------------------
// cosh.

interface CoshState {
  readonly requests: number;
  readonly compactions: number;
  /** Highest context item id in the history (an upsert of a higher id is a new item). */
  readonly maxId: number;
  /** The last new item was a model output (Assistant, ToolCall). */
  readonly lastOutput: boolean;
  /** A MapReduce staging or a legacy split buffer is in progress: an open compaction. */
  readonly staging: boolean;
  readonly mapReduce: boolean;
  readonly split: boolean;
}

/**
 * cosh (src/main/importers/cosh/machine.ts): one request before each new model output item (a new
 * Assistant or ToolCall context item after a non-output item); a compaction per bracket: a
 * MapReduce staging or split buffer that starts (committed by the next Compaction item, or
 * discarded), or a Compaction item outside one. Branches by reference: `fork {parent}`, `revert`/`rollback {target}` restart from the
 * referenced branch and event (the `selection` inside the reference — before or through a
 * message — is not applied: the event is). The default branch is the branch of the last line.
 * Simplified: MapReduce staging, map and reduce calls are not counted as requests.
 */
export class CoshScanner extends ParsedScanner {
  private readonly h = new Histories<CoshState>(() => ({
    requests: 0,
    compactions: 0,
    maxId: -1,
    lastOutput: false,
    staging: false,
    mapReduce: false,
    split: false,
  }));
  private line0 = 0;

  protected value(v: Record<string, unknown>): void {
    const delta = isObj(v.delta) ? v.delta : undefined;
    const branch = str(v.branch_id);
    if (!delta || branch === undefined) return;
    const at = num(v.event_id) ?? ++this.line0;
    this.line0 = Math.max(this.line0, at);
    const type = str(delta.type);
    let s = this.h.head(branch);
    if (type === 'genesis') {
      const m = isObj(delta.metadata) ? delta.metadata : {};
      if (this.id === null) {
        this.id = str(m.session_id) ?? branch;
        this.project = str(m.cwd) ?? null;
        this.title = str(m.title) ?? null;
        this.time(m.created_at);
      }
      if (typeof m.model === 'string') this.model = m.model;
    } else if (type === 'fork' || type === 'revert' || type === 'rollback') {
      const ref = isObj(delta.parent) ? delta.parent : isObj(delta.target) ? delta.target : undefined;
      const rb = ref ? str(ref.branch_id) : undefined;
      const re = ref ? num(ref.event_id) : undefined;
      if (rb !== undefined && re !== undefined) s = this.h.at(rb, re);
    } else if (type === 'metadata' && isObj(delta.change)) {
      if (delta.change.field === 'title' && typeof delta.change.title === 'string' && branch === this.id) this.title = delta.change.title;
      if (delta.change.field === 'model' && typeof delta.change.model === 'string') this.model = delta.change.model;
    } else if (type === 'context' && isObj(delta.change) && delta.change.field === 'item_upsert' && isObj(delta.change.item)) {
      const [kind, body] = Object.entries(delta.change.item)[0] ?? [];
      const id = isObj(body) ? num(body.id) : undefined;
      if (kind !== undefined && id !== undefined && id > s.maxId) {
        const output = kind === 'Assistant' || kind === 'ToolCall';
        const checkpoint = kind === 'Compaction';
        s = {
          ...s,
          requests: s.requests + (output && !s.lastOutput ? 1 : 0),
          // A checkpoint commits the open staging, or is a compaction of its own.
          compactions: s.compactions + (checkpoint && !s.staging ? 1 : 0),
          staging: checkpoint ? false : s.staging,
          maxId: id,
          lastOutput: output,
        };
      }
    } else if (type === 'context' && isObj(delta.change)) {
      const c = delta.change;
      let mapReduce = s.mapReduce;
      let split = s.split;
      if (c.field === 'map_reduce') mapReduce = c.value !== null && c.value !== undefined;
      else if (c.field === 'split') split = c.value !== null && c.value !== undefined;
      else if (c.field === 'split_buffer_append') split = true;
      else if (c.field === 'initialize') {
        mapReduce = c.map_reduce !== null && c.map_reduce !== undefined;
        split = c.split !== null && c.split !== undefined;
      }
      if (mapReduce !== s.mapReduce || split !== s.split) {
        const opens = (mapReduce && !s.mapReduce) || (split && !s.split);
        const staging = opens ? true : mapReduce || split ? s.staging : false;
        s = { ...s, mapReduce, split, staging, compactions: s.compactions + (opens && !s.staging ? 1 : 0) };
      }
    }
    this.h.push(branch, at, s);
  }

  result(): ScanResult {
    const n = this.h.newest;
    const s = n ? this.h.head(n.branch) : null;
    return this.out(s ? s.requests : 0, s ? s.compactions : 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Palimpsest v1.

interface PState {
  readonly requests: number;
  readonly compactions: number;
}

/**
 * Palimpsest v1 (docs/format.md §12): `request` and `compaction/start` events on the history of
 * the default branch (the branch of the newest seq); `fork {parent}`, `revert`/`rollback
 * {target}` restart from the referenced branch and seq.
 */
export class PalimpsestScanner extends ParsedScanner {
  private readonly h = new Histories<PState>(() => ({ requests: 0, compactions: 0 }));
  private seq = -1;

  protected value(v: Record<string, unknown>): void {
    const kind = str(v.kind);
    if (kind === undefined) return;
    this.seq = num(v.seq) ?? this.seq + 1;
    const branch = str(v.branch) ?? 'main';
    this.time(v.at);
    let s = this.h.head(branch);
    if (kind === 'session' && this.id === null) {
      this.id = str(v.id) ?? null;
      this.project = str(v.cwd) ?? null;
      this.title = str(v.title) ?? null;
      this.version = str(v.harnessVersion) ?? null;
    } else if (kind === 'fork' || kind === 'revert' || kind === 'rollback') {
      const ref = isObj(v.parent) ? v.parent : isObj(v.target) ? v.target : undefined;
      const rs = ref ? num(ref.seq) : undefined;
      if (ref && rs !== undefined) s = this.h.at(str(ref.branch) ?? 'main', rs);
    } else if (kind === 'request') s = { requests: s.requests + 1, compactions: s.compactions };
    else if (kind === 'compaction/start') s = { requests: s.requests, compactions: s.compactions + 1 };
    else if (kind === 'header' && isObj(v.route) && typeof v.route.model === 'string') this.model = v.route.model;
    this.h.push(branch, this.seq, s);
  }

  result(): ScanResult {
    const n = this.h.newest;
    const s = n ? this.h.head(n.branch) : null;
    return this.out(s ? s.requests : 0, s ? s.compactions : 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Rind.

/**
 * Rind (src/main/importers/rind/session.ts): each assistant message of messages.jsonl that is not
 * a `compact_boundary` marker is one model call; a marker whose `compact_id` names a record of
 * compactions.jsonl with a valid handoff is one compaction (and, when the record's reason is `context_length_error`,
 * one more call: the request the provider refused). Title, cwd, times and model from meta.json.
 */
export function scanRind(dir: string): ScanResult {
  const problems: string[] = [];
  let meta: Record<string, unknown> = {};
  try {
    const m: unknown = JSON.parse(readRegularFileSync(join(dir, 'meta.json')));
    if (isObj(m)) meta = m;
  } catch {
    // meta.json is optional; the messages say enough.
  }
  const records = new Map<string, string | null>();
  const comp = new (class extends ParsedScanner {
    protected value(v: Record<string, unknown>): void {
      // A record counts only with a valid handoff (role assistant, string content); a later one of the same id wins.
      const id = str(v.id) ?? (typeof v.id === 'number' ? String(v.id) : undefined);
      const h = isObj(v.handoff_message) ? v.handoff_message : undefined;
      if (id !== undefined && h && h.role === 'assistant' && typeof h.content === 'string') records.set(id, str(v.reason) ?? null);
    }
  })();
  scanFileSync(join(dir, 'compactions.jsonl'), comp);
  let requests = 0;
  let compactions = 0;
  const msgs = new (class extends ParsedScanner {
    protected value(v: Record<string, unknown>): void {
      this.time(v.ts);
      const m = isObj(v.meta) ? v.meta : undefined;
      if (m && m.kind === 'compact_boundary') {
        const cid = str(m.compact_id) ?? (typeof m.compact_id === 'number' ? String(m.compact_id) : undefined);
        if (cid !== undefined && records.has(cid)) {
          compactions++;
          if (records.get(cid) === 'context_length_error') requests++;
        }
        return;
      }
      if (v.role === 'assistant') requests++;
    }

    get times(): [string | null, string | null] {
      return [this.startedAt, this.endedAt];
    }

    get badLines(): number {
      return this.bad;
    }
  })();
  const r = scanFileSync(join(dir, 'messages.jsonl'), msgs);
  if (r.error !== null) problems.push(`${join(dir, 'messages.jsonl')}: ${r.error}`);
  const [first, last] = msgs.times;
  return {
    id: str(meta.session_id) ?? dir.replace(/^.*[\\/]/, ''),
    project: str(meta.cwd) ?? str(meta.workspace_root) ?? null,
    title: str(meta.title) ?? null,
    startedAt: str(meta.created_at) ?? first,
    endedAt: last ?? str(meta.updated_at) ?? null,
    requests,
    compactions,
    harnessVersion: str(meta.schema_version) !== undefined ? `meta ${str(meta.schema_version)}` : null,
    model: str(meta.model) ?? null,
    badLines: msgs.badLines,
    problems,
  };
}
