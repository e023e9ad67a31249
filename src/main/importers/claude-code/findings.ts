import type { Severity } from '../../../shared/model/diagnostic';
import { MAX_CONTENT_DEPTH } from '../../../shared/json-depth';
import { TOO_DEEP_INPUT } from './blocks';

/** Seqs cited by one aggregated diagnostic, at most. */
const MAX_CITED = 20;
/** Lines of the main log named by CC_UNLOGGED_CONTEXT, at most. */
const MAX_PARENTS = 5;

interface Count {
  count: number;
  readonly line: number;
  readonly seqs: number[];
}

/** How many times, where first, and what the first one was. */
interface First {
  count: number;
  readonly line: number;
  readonly what: string;
}

export type Report = (rule: string, severity: Severity, message: string, seqs: number[], line: number) => void;

/**
 * What one file's lines showed that is told once per file, at its end: unknown record types,
 * fields and content, tool inputs nested too deep, duplicate uuids, context the main log does not
 * record, api-requests that cannot be rebuilt. Owned here so that each kind is one diagnostic
 * whatever the number of lines: a finding is counted where it is seen, its first line (and what
 * it was) kept, the seqs it cites capped; `report` tells them all, once. The version warning is
 * the one told at once, and only the first time.
 */
export class FileFindings {
  private readonly unknownTypes = new Map<string, Count>();
  private readonly unknownFields = new Map<string, Count>();
  /** Tool inputs nested too deep to keep as structure (./blocks.ts), kept as their JSON text. */
  private readonly tooDeep = new Map<string, Count>();
  private duplicates: { count: number; readonly line: number; readonly first: number } | null = null;
  private unlogged: { count: number; readonly line: number; readonly parents: number[] } | null = null;
  private apiUnresolved: First | null = null;
  /** Api-requests whose `keep` no conversation of this log can hold (a finding, not a length). */
  private apiBadCount: First | null = null;
  private versionWarned = false;

  /** A record of a type this importer does not know, kept as the unknown event `seq`. */
  unknownType(type: string, line: number, seq: number): void {
    count(this.unknownTypes, type, line, seq);
  }

  /** A top-level field this importer does not know. */
  unknownField(name: string, line: number): void {
    count(this.unknownFields, `field "${name}"`, line);
  }

  /** Content the block mapper could not keep as it is (./blocks.ts): unknown, or a tool input too deep. */
  block(what: string, line: number): void {
    count(what === TOO_DEEP_INPUT ? this.tooDeep : this.unknownFields, what, line);
  }

  /** A record reusing a uuid already in the session, first written at line `first` of this file (0: elsewhere). */
  duplicate(line: number, first: number): void {
    if (this.duplicates) this.duplicates.count++;
    else this.duplicates = { count: 1, line, first };
  }

  /** A record of this file the main conversation held after its line `parent`, which the main log does not record. */
  unloggedContext(line: number, parent: number): void {
    if (!this.unlogged) this.unlogged = { count: 1, line, parents: [parent] };
    else {
      this.unlogged.count++;
      if (this.unlogged.parents.length < MAX_PARENTS) this.unlogged.parents.push(parent);
    }
  }

  /** An api-request whose messages could not be resolved, or brought to the request's order. */
  apiRequestUnresolved(line: number, what: string): void {
    if (this.apiUnresolved) this.apiUnresolved.count++;
    else this.apiUnresolved = { count: 1, line, what };
  }

  /** An api-request whose `keep` cannot count the messages the log holds. */
  apiRequestBadCount(line: number, what: string): void {
    if (this.apiBadCount) this.apiBadCount.count++;
    else this.apiBadCount = { count: 1, line, what };
  }

  /** A version newer than the newest verified: true the first time only (the caller warns then). */
  newerVersion(): boolean {
    if (this.versionWarned) return false;
    this.versionWarned = true;
    return true;
  }

  /** Tell every finding counted, one diagnostic per kind (per type for record types and deep inputs). */
  report(to: Report): void {
    for (const [type, u] of this.unknownTypes) {
      to(
        'UNKNOWN_RECORDS',
        'warning',
        `${u.count} record${u.count === 1 ? '' : 's'} of type "${type}", which this importer does not know (first at line ${u.line}); kept as unknown events.`,
        u.seqs,
        u.line,
      );
    }
    if (this.unknownFields.size > 0) {
      // A log can name any number of fields: the message lists the first few, and the earliest
      // line is found without spreading them all as arguments (which overflows the stack).
      const parts: string[] = [];
      let first = Infinity;
      for (const [k, c] of this.unknownFields) {
        if (c.line < first) first = c.line;
        if (parts.length < MAX_CITED) parts.push(`${k} ×${c.count} (first at line ${c.line})`);
      }
      const more = this.unknownFields.size - parts.length;
      to(
        'UNKNOWN_FIELDS',
        'info',
        `Fields and content this importer does not know: ${parts.join('; ')}${more > 0 ? `; and ${more} more` : ''}. They are ignored.`,
        [],
        first,
      );
    }
    for (const c of this.tooDeep.values()) {
      to(
        'CC_TOO_DEEP',
        'warning',
        `${c.count} tool input${c.count === 1 ? '' : 's'} nest${c.count === 1 ? 's' : ''} more than ${MAX_CONTENT_DEPTH} levels deep (first at line ${c.line}); each is kept as its JSON text.`,
        c.seqs,
        c.line,
      );
    }
    if (this.duplicates) {
      const d = this.duplicates;
      const first = d.first > 0 ? `, first written at line ${d.first}` : '';
      to(
        'CC_DUPLICATE_UUID',
        'warning',
        `${d.count} record${d.count === 1 ? ' reuses a uuid' : 's reuse uuids'} already in the session (first at line ${d.line}${first}); the first record stands and the later ones are kept as records.`,
        [],
        d.line,
      );
    }
    if (this.apiUnresolved) {
      const u = this.apiUnresolved;
      to(
        'CC_API_REQUEST_UNRESOLVED',
        'warning',
        `${u.count} api-request record${u.count === 1 ? '' : 's'} (first at line ${u.line}) could not be rebuilt (the first ${u.what}); the view${u.count === 1 ? '' : 's'} of ${u.count === 1 ? 'that request is' : 'those requests are'} the branch's surface, which may differ from what was sent.`,
        [],
        u.line,
      );
    }
    if (this.apiBadCount) {
      const u = this.apiBadCount;
      to(
        'CC_API_REQUEST_BAD_COUNT',
        'warning',
        `${u.count} api-request record${u.count === 1 ? '' : 's'} (first at line ${u.line}) give${u.count === 1 ? 's' : ''} a "keep" that cannot count the messages the log holds (the first: ${u.what}); ${u.count === 1 ? 'it is' : 'they are'} kept as record${u.count === 1 ? '' : 's'} and the view${u.count === 1 ? '' : 's'} of ${u.count === 1 ? 'that request is' : 'those requests are'} the branch's surface.`,
        [],
        u.line,
      );
    }
    if (this.unlogged) {
      const u = this.unlogged;
      to(
        'CC_UNLOGGED_CONTEXT',
        'warning',
        `${u.count} record${u.count === 1 ? '' : 's'} of this file (first at line ${u.line}) ${u.count === 1 ? 'is a message' : 'are messages'} the main conversation held after its line${u.parents.length === 1 ? '' : 's'} ${u.parents.join(', ')}, which the main log does not record: the main branch's views after ${u.parents.length === 1 ? 'that line' : 'those lines'} lack ${u.count === 1 ? 'it' : 'them'}.`,
        [],
        u.line,
      );
    }
  }
}

function count(map: Map<string, Count>, key: string, line: number, seq?: number): void {
  let c = map.get(key);
  if (!c) {
    c = { count: 0, line, seqs: [] };
    map.set(key, c);
  }
  c.count++;
  if (seq !== undefined && c.seqs.length < MAX_CITED) c.seqs.push(seq);
}
