// Synthetic Palimpsest v1 sessions for the performance bench (docs/performance.md).
//
//   node dist/gen-sessions.js --out bench/data [--only s10mb] [--force]
//
// writes s10mb.jsonl, s100mb.jsonl, s1gb.jsonl and e1m.jsonl (≈1,000,000 small events), each with a
// `.meta.json` beside it; a file whose meta says it was made by this generator with the same
// settings, and whose size matches, is kept. Output is deterministic: a seeded PRNG, no clock, no
// Math.random. Lines are written as they are made (never the whole file in memory).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Bump when the output for a given seed changes: files made by another version are rewritten. */
export const GENERATOR_VERSION = 3;

// ---------------------------------------------------------------------------------------------
// Seeded PRNG (sfc32 seeded through splitmix32): fast, good enough, identical on every machine.

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const mix = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** [0, 1) */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }

  /** Log-uniform in [lo, hi]: many small values, a long tail of large ones. */
  logRange(lo: number, hi: number): number {
    return Math.round(lo * Math.pow(hi / lo, this.next()));
  }

  id(prefix: string, n: number): string {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let s = prefix;
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// Text pools: built once per session from the seed, then sampled (fast enough for 1 GB).

const WORDS = (
  'the a an of to in for on with as by from at that this it is are was be can will should would could must not no ' +
  'file files line lines function method class type interface module import export return value values error errors ' +
  'test tests build run check config option options session event events item items request response model view ' +
  'compaction summary checkpoint tool call result results token tokens budget window context history replay index ' +
  'offset byte bytes parse reader importer diagnostic provider route cache prefix tail head range segment fingerprint ' +
  'because so then now first next last after before while when if only also still already again instead ' +
  'fix add remove change update rename move keep drop read write open close load save find show hide list count ' +
  'small large long short new old same other each every some all both either neither whole part half ' +
  'user assistant system reasoning output input memory disk path directory branch commit diff patch'
).split(' ');

const IDENTS = (
  'session events items state view index offset length count total buffer chunk line lines reader sink emit ' +
  'replay fold surface snapshot keys ids masked request response usage finish reason budget window trigger ' +
  'summary checkpoint compaction source covers provenance fate route provider model tokens estimate prefix ' +
  'cache handler router server client config options args result results error errors value values key map set ' +
  'queue worker pool task job batch record records schema parse decode encode split join push pop slice'
).split(' ');

const TYPES = [
  'string',
  'number',
  'boolean',
  'Buffer',
  'Item',
  'LogEvent',
  'ReplayState',
  'ModelView',
  'Diagnostic',
  'Map<string, number>',
  'readonly string[]',
  'Promise<void>',
];

/** Bits of non-ASCII text real sessions carry: accents, CJK, Cyrillic, arrows, emoji. */
const NON_ASCII = [
  'café',
  'naïve',
  'Größe',
  'über',
  'façade',
  'déjà vu',
  'São Paulo',
  'Zürich',
  '日本語のテキスト',
  '中文注释',
  '한국어',
  'Привет, мир',
  'Ελληνικά',
  '→',
  '—',
  '…',
  '✓',
  '✗',
  '≤',
  '≥',
  '°C',
  '€',
  '🚀',
  '🔧',
  '✅',
  '⚠️',
  '📁',
  '🙂',
];

interface Pools {
  readonly codeLines: readonly string[];
  readonly sentences: readonly string[];
  readonly paths: readonly string[];
}

function camel(rng: Rng): string {
  const a = rng.pick(IDENTS);
  if (rng.chance(0.5)) return a;
  const b = rng.pick(IDENTS);
  return a + b.charAt(0).toUpperCase() + b.slice(1);
}

function sentence(rng: Rng, nonAscii: number): string {
  const n = rng.range(6, 24);
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    if (rng.chance(nonAscii)) words.push(rng.pick(NON_ASCII));
    else if (rng.chance(0.06)) words.push('`' + camel(rng) + '`');
    else words.push(rng.pick(WORDS));
  }
  const s = words.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1) + rng.pick(['.', '.', '.', '.', ':', '?', '!']);
}

function codeLine(rng: Rng): string {
  const indent = '  '.repeat(rng.int(5));
  switch (rng.int(12)) {
    case 0:
      return `${indent}const ${camel(rng)} = ${camel(rng)}(${camel(rng)}, ${rng.int(1000)});`;
    case 1:
      return `${indent}if (${camel(rng)}.${camel(rng)} >= ${rng.int(4096)}) return ${camel(rng)};`;
    case 2:
      return `${indent}for (const ${rng.pick(IDENTS)} of ${camel(rng)}) ${camel(rng)}.push(${rng.pick(IDENTS)});`;
    case 3:
      return `${indent}// ${sentence(rng, 0.03)}`;
    case 4:
      return `${indent}export function ${camel(rng)}(${rng.pick(IDENTS)}: ${rng.pick(TYPES)}): ${rng.pick(TYPES)} {`;
    case 5:
      return `${indent}}`;
    case 6:
      return `${indent}${camel(rng)}.${camel(rng)} = "${rng.pick(WORDS)}\\t${rng.pick(WORDS)}";`;
    case 7:
      return `${indent}throw new Error(\`${sentence(rng, 0)} \${${camel(rng)}}\`);`;
    case 8:
      return `${indent}private readonly ${camel(rng)} = new Map<string, ${rng.pick(TYPES)}>();`;
    case 9:
      return '';
    case 10:
      return `${indent}await ${camel(rng)}.${camel(rng)}({ ${rng.pick(IDENTS)}: ${rng.int(100)}, ${rng.pick(IDENTS)}: '${rng.pick(WORDS)}' });`;
    default:
      return `${indent}return ${camel(rng)}.${camel(rng)}((x) => x.${rng.pick(IDENTS)} !== ${rng.chance(0.5) ? 'null' : 'undefined'});`;
  }
}

function makePools(rng: Rng): Pools {
  const codeLines: string[] = [];
  for (let i = 0; i < 4096; i++) codeLines.push(codeLine(rng));
  const sentences: string[] = [];
  for (let i = 0; i < 2048; i++) sentences.push(sentence(rng, i % 16 === 0 ? 0.2 : 0));
  const paths: string[] = [];
  for (let i = 0; i < 256; i++) {
    const dirs = ['src', rng.pick(['main', 'shared', 'renderer', 'lib', 'server']), rng.pick(IDENTS)];
    paths.push(`/home/dev/project/${dirs.join('/')}/${camel(rng)}.${rng.pick(['ts', 'ts', 'tsx', 'py', 'rs', 'md', 'json'])}`);
  }
  return { codeLines, sentences, paths };
}

function prose(rng: Rng, pools: Pools, chars: number): string {
  const parts: string[] = [];
  let n = 0;
  while (n < chars) {
    const s = rng.pick(pools.sentences);
    parts.push(s);
    n += s.length + 1;
    if (rng.chance(0.12)) {
      parts.push('\n\n');
      n += 2;
    }
  }
  return parts.join(' ');
}

/** A file as a Read tool shows it: numbered lines of code, now and then a non-ASCII comment. */
function codeText(rng: Rng, pools: Pools, chars: number, nonAscii: boolean): string {
  const lines: string[] = [];
  let n = 0;
  let at = rng.int(pools.codeLines.length);
  let no = rng.range(1, 400);
  while (n < chars) {
    let line = pools.codeLines[at % pools.codeLines.length] as string;
    at += rng.chance(0.9) ? 1 : rng.int(64);
    if (nonAscii && rng.chance(0.05)) line += ` // ${rng.pick(NON_ASCII)} ${rng.pick(NON_ASCII)}`;
    const numbered = `${String(no++).padStart(6, ' ')}\t${line}`;
    lines.push(numbered);
    n += numbered.length + 1;
  }
  return lines.join('\n');
}

function shellOutput(rng: Rng, pools: Pools, chars: number): string {
  const lines: string[] = [];
  let n = 0;
  while (n < chars) {
    let line: string;
    switch (rng.int(5)) {
      case 0:
        line = `${rng.pick(pools.paths)}:${rng.range(1, 900)}:${rng.range(1, 80)} - error TS${rng.range(2000, 2999)}: ${rng.pick(pools.sentences)}`;
        break;
      case 1:
        line = ` ✓ test/${camel(rng)}.test.ts (${rng.range(1, 60)} tests) ${rng.range(3, 900)}ms`;
        break;
      case 2:
        line = `${rng.pick(pools.paths)}`;
        break;
      case 3:
        line = `  ${rng.pick(['PASS', 'FAIL', 'SKIP'])} ${camel(rng)} › ${rng.pick(pools.sentences)}`;
        break;
      default:
        line = rng.pick(pools.codeLines);
    }
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Sessions.

export interface Profile {
  /** Context window in tokens; compaction fires at `trigger` of it. */
  readonly window: number;
  readonly trigger: number;
  /** Share of the estimated context kept raw after a compaction. */
  readonly rawTail: number;
  /** Tool result sizes: a share are "large" (log-uniform in `large`), the rest small. */
  readonly largeShare: number;
  readonly large: readonly [number, number];
  readonly small: readonly [number, number];
  /** Assistant texts and reasoning. */
  readonly text: readonly [number, number];
  readonly reasoning: readonly [number, number];
  readonly userText: readonly [number, number];
  readonly summary: readonly [number, number];
  readonly systemChars: number;
  /** Share of tool results carrying non-ASCII text (one character makes a two-byte string). */
  readonly nonAsciiShare: number;
  readonly recordShare: number;
}

export const PROFILES = {
  /** Coding-agent sessions as Claude Code or cosh write them: big file reads, a 200k window. */
  standard: {
    window: 200_000,
    trigger: 0.8,
    rawTail: 0.2,
    largeShare: 0.3,
    large: [2_000, 40_000],
    small: [80, 1_500],
    text: [60, 1_800],
    reasoning: [200, 3_000],
    userText: [20, 1_200],
    summary: [3_000, 9_000],
    systemChars: 12_000,
    nonAsciiShare: 0.08,
    recordShare: 0.15,
  },
  /** Many small events (short results, frequent records): the 1 M-event session. */
  small: {
    window: 128_000,
    trigger: 0.8,
    rawTail: 0.2,
    largeShare: 0.03,
    large: [1_200, 6_000],
    small: [30, 400],
    text: [20, 300],
    reasoning: [40, 400],
    userText: [10, 200],
    summary: [1_500, 4_000],
    systemChars: 6_000,
    nonAsciiShare: 0.08,
    recordShare: 0.3,
  },
} as const satisfies Record<string, Profile>;
export type ProfileName = keyof typeof PROFILES;

export interface GenerateOptions {
  /** Stop at the first turn boundary once this many bytes are written. */
  readonly targetBytes?: number;
  /** Stop once this many events (lines) are written. */
  readonly targetEvents?: number;
  readonly seed: number;
  readonly profile?: ProfileName;
  /** Called every ~64 MB or 100k events. */
  readonly onProgress?: (bytes: number, events: number) => void;
}

export interface GenerateStats {
  readonly bytes: number;
  readonly events: number;
  readonly items: number;
  readonly requests: number;
  readonly compactions: number;
  readonly masks: number;
  readonly records: number;
  readonly maxLiveItems: number;
}

interface LiveItem {
  readonly id: string;
  readonly seq: number;
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  /** Characters it puts in the context (the reference's when masked). */
  chars: number;
  masked: boolean;
}

const TOOL_NAMES = ['Read', 'Edit', 'Write', 'Bash', 'Grep', 'Glob', 'LS', 'WebFetch', 'TodoWrite', 'Task', 'MultiEdit', 'NotebookEdit'];

/** Batches lines into ~1 MiB writes. */
class LineWriter {
  private parts: string[] = [];
  private pending = 0;
  bytes = 0;
  lines = 0;

  constructor(private readonly fd: number) {}

  write(obj: object): number {
    const line = JSON.stringify(obj) + '\n';
    this.parts.push(line);
    this.pending += line.length;
    const seq = this.lines++;
    if (this.pending >= 1 << 20) this.flush();
    return seq;
  }

  flush(): void {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    this.bytes += buf.length;
    this.parts = [];
    this.pending = 0;
  }

  /** Bytes written so far, counting the batch not yet flushed (approximately, for non-ASCII). */
  get approxBytes(): number {
    return this.bytes + this.pending;
  }
}

class SessionWriter {
  private readonly rng: Rng;
  private readonly pools: Pools;
  private readonly p: Profile;
  private readonly out: LineWriter;
  private time = Date.UTC(2025, 5, 1, 9, 0, 0);
  private live: LiveItem[] = [];
  private liveChars = 0;
  private envelopeChars = 0;
  private nItem = 0;
  private nReq = 0;
  private nCall = 0;
  private nCompaction = 0;
  private nMask = 0;
  private nRecord = 0;
  private maxLive = 0;
  private cacheTokens = 0;

  constructor(out: LineWriter, seed: number, profile: Profile) {
    this.out = out;
    this.rng = new Rng(seed);
    this.pools = makePools(this.rng);
    this.p = profile;
  }

  private at(): string {
    this.time += this.rng.logRange(1, 8_000);
    return new Date(this.time).toISOString();
  }

  private emit(obj: Record<string, unknown>): number {
    return this.out.write({ ...obj, at: this.at() });
  }

  private range(r: readonly [number, number]): number {
    return this.rng.logRange(r[0], r[1]);
  }

  private estTokens(): number {
    return Math.round((this.envelopeChars + this.liveChars) / 4);
  }

  private addItem(
    item: Record<string, unknown> & { id: string; role: LiveItem['role'] },
    chars: number,
    extra: Record<string, unknown> = {},
  ): number {
    const seq = this.emit({ kind: 'item', item, ...extra });
    this.live.push({ id: item.id, seq, role: item.role, chars, masked: false });
    this.liveChars += chars;
    if (this.live.length > this.maxLive) this.maxLive = this.live.length;
    return seq;
  }

  start(sessionId: string): void {
    const rng = this.rng;
    this.out.write({
      kind: 'session',
      format: 'palimpsest',
      version: 1,
      id: sessionId,
      harness: 'synthetic',
      harnessVersion: `gen-${GENERATOR_VERSION}`,
      title: 'Synthetic session for the performance bench',
      cwd: '/home/dev/project',
      at: new Date(this.time).toISOString(),
    });
    const system = prose(rng, this.pools, this.p.systemChars);
    const tools = TOOL_NAMES.map((name) => ({
      name,
      description: prose(rng, this.pools, rng.range(200, 1_600)),
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: rng.range(1, 5) }, () => [
            camel(rng),
            { type: rng.pick(['string', 'number', 'boolean']), description: rng.pick(this.pools.sentences) },
          ]),
        ),
        required: [],
        additionalProperties: false,
      },
    }));
    this.envelopeChars = system.length + JSON.stringify(tools).length;
    this.emit({
      kind: 'header',
      system: [{ type: 'text', text: system }],
      tools,
      route: { provider: 'anthropic', model: 'claude-sonnet-4-5', window: this.p.window, maxOutput: 32_000 },
    });
  }

  private nextId(prefix: string): string {
    return `${prefix}${++this.nItem}`;
  }

  private toolInput(name: string): string {
    const rng = this.rng;
    const path = rng.pick(this.pools.paths);
    switch (name) {
      case 'Read':
        return JSON.stringify({ file_path: path, offset: rng.range(1, 400), limit: rng.pick([200, 400, 2000]) });
      case 'Edit':
      case 'MultiEdit': {
        const oldString = codeText(rng, this.pools, this.range([40, 1_200]), false);
        return JSON.stringify({ file_path: path, old_string: oldString, new_string: oldString.replace(/const /g, 'let ') });
      }
      case 'Write':
        return JSON.stringify({ file_path: path, content: codeText(rng, this.pools, this.range([200, 6_000]), true) });
      case 'Bash':
        return JSON.stringify({
          command: rng.pick(['npm test', 'npx tsc --noEmit', 'git status --short', `rg -n ${camel(rng)} src`, 'ls -la src']),
          timeout: 120_000,
        });
      case 'Grep':
        return JSON.stringify({ pattern: camel(rng), path: '/home/dev/project/src', output_mode: 'content' });
      case 'TodoWrite':
        return JSON.stringify({ todos: [{ content: rng.pick(this.pools.sentences), status: 'in_progress' }] });
      default:
        return JSON.stringify({ query: rng.pick(this.pools.sentences) });
    }
  }

  private toolOutput(name: string): string {
    const rng = this.rng;
    const large = rng.chance(this.p.largeShare);
    const chars = this.range(large ? this.p.large : this.p.small);
    const nonAscii = rng.chance(this.p.nonAsciiShare);
    let text: string;
    switch (name) {
      case 'Read':
        text = codeText(rng, this.pools, chars, nonAscii);
        break;
      case 'Bash':
      case 'Grep':
      case 'Glob':
      case 'LS':
        text = shellOutput(rng, this.pools, chars);
        break;
      case 'Edit':
      case 'MultiEdit':
      case 'Write':
        text =
          `The file ${rng.pick(this.pools.paths)} has been updated.` + (large ? '\n' + codeText(rng, this.pools, chars, nonAscii) : '');
        break;
      default:
        text = prose(rng, this.pools, chars);
    }
    if (nonAscii && !/[\u0080-\uffff]/.test(text)) text += ` ${rng.pick(NON_ASCII)}`;
    return text;
  }

  /** One request of the agent loop: what the model wrote, the response, then tool results. Returns true when the turn ends. */
  private step(final: boolean): void {
    const rng = this.rng;
    const p = this.p;
    const reqId = `req_${++this.nReq}`;
    const context = this.estTokens();
    this.emit(rng.chance(0.5) ? { kind: 'request', id: reqId } : { kind: 'request', id: reqId, purpose: 'agent' });
    let outChars = 0;
    if (rng.chance(0.55)) {
      const text = prose(rng, this.pools, this.range(p.reasoning));
      outChars += text.length;
      this.addItem({ id: this.nextId('r'), role: 'assistant', blocks: [{ type: 'reasoning', text }] }, text.length);
    }
    const calls: { id: string; name: string }[] = [];
    if (!final)
      for (let i = rng.chance(0.2) ? rng.range(2, 3) : 1; i > 0; i--) calls.push({ id: rng.id('toolu_', 24), name: rng.pick(TOOL_NAMES) });
    const id = this.nextId('a');
    const textBlocks = final || rng.chance(0.4) ? [{ type: 'text', text: prose(rng, this.pools, this.range(p.text)) }] : [];
    const callBlocks = calls.map((c) => ({ type: 'tool_call', id: c.id, name: c.name, input: this.toolInput(c.name) }));
    const chars = [...textBlocks.map((b) => b.text.length), ...callBlocks.map((b) => b.input.length + b.name.length)].reduce(
      (a, b) => a + b,
      0,
    );
    outChars += chars;
    if (textBlocks.length > 0 && callBlocks.length > 0 && rng.chance(0.25)) {
      // One response logged as two records: the text, then the calls extending the same item.
      this.addItem({ id, role: 'assistant', blocks: textBlocks }, chars);
      this.emit({ kind: 'item', item: { id, role: 'assistant', blocks: callBlocks }, op: { op: 'extend' } });
    } else {
      this.addItem({ id, role: 'assistant', blocks: [...textBlocks, ...callBlocks] }, chars);
    }
    const output = Math.round(outChars / 4) + rng.int(40);
    const cacheRead = Math.min(this.cacheTokens, context);
    const cacheWrite = Math.max(0, context - cacheRead - rng.int(200));
    this.cacheTokens = context;
    this.emit({
      kind: 'response',
      request: reqId,
      finish: final ? { raw: 'end_turn', reason: 'stop' } : { raw: 'tool_use', reason: 'tool_calls' },
      usage: { input: Math.max(1, context - cacheRead - cacheWrite), output, cacheRead, cacheWrite },
    });
    for (const c of calls) {
      if (rng.chance(p.recordShare)) this.record('hook/PreToolUse', `${c.name} allowed`);
      const text = this.toolOutput(c.name);
      const isError = rng.chance(0.04);
      this.addItem(
        {
          id: this.nextId('t'),
          role: 'tool',
          blocks: [{ type: 'tool_result', callId: c.id, content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) }],
        },
        text.length,
      );
    }
    if (rng.chance(p.recordShare))
      this.record(rng.pick(['stream/usage', 'hook/PostToolUse', 'ui/title', 'telemetry']), rng.pick(this.pools.sentences));
  }

  private record(type: string, summary: string): void {
    this.nRecord++;
    this.emit({ kind: 'record', type, summary });
  }

  /** The model masks an old, large tool result (cosh's mask_tool_result); the reference is what it sees instead. */
  private maybeMask(): void {
    const rng = this.rng;
    const tailStart = Math.floor(this.live.length * 0.7);
    for (let tries = 0; tries < 4; tries++) {
      const i = rng.int(Math.max(1, tailStart));
      const it = this.live[i];
      if (!it || it.role !== 'tool' || it.masked || it.chars < 1_000) continue;
      const ref = `[tool result ${it.id} masked by the model: ${it.chars} characters; ask to re-read it by id]`;
      this.emit({ kind: 'mask', items: [it.id], by: 'model', reference: [{ type: 'text', text: ref }] });
      this.liveChars += ref.length - it.chars;
      it.chars = ref.length;
      it.masked = true;
      this.nMask++;
      return;
    }
  }

  /** A five-step compaction bracket (DeepSeek Harness): start, summarizer request(s), summary, checkpoint replacing the range, end. */
  private compact(): void {
    const rng = this.rng;
    const p = this.p;
    const total = this.liveChars;
    // Keep a raw tail of about `rawTail` of the context, starting at a whole unit (never a tool result).
    let keep = 0;
    let cut = this.live.length;
    while (cut > 1 && keep < total * p.rawTail) keep += (this.live[--cut] as LiveItem).chars;
    while (cut > 1 && (this.live[cut] as LiveItem).role === 'tool') cut--;
    if (cut < 2) return;
    const source = this.live.slice(0, cut);
    const ids = source.map((x) => x.id);
    const cid = `cmp_${++this.nCompaction}`;
    const preTokens = this.estTokens();
    this.emit({
      kind: 'compaction/start',
      id: cid,
      trigger: 'auto',
      strategy: 'summary',
      policy: {
        name: 'synthetic',
        window: p.window,
        triggerRatio: p.trigger,
        rawTailTokens: Math.round(p.window * p.rawTail),
        outputReserve: 16_000,
      },
      preTokens,
      source: ids,
    });
    const sourceTokens = Math.round(source.reduce((n, x) => n + x.chars, 0) / 4);
    const instruction = [{ type: 'text', text: prose(rng, this.pools, 1_200) }];
    const attempts = rng.chance(0.15) ? 2 : 1;
    let reqId = '';
    for (let a = 1; a <= attempts; a++) {
      reqId = `req_${++this.nReq}`;
      this.emit({
        kind: 'request',
        id: reqId,
        purpose: 'compaction',
        compactionId: cid,
        route: { model: 'claude-haiku-4-5', maxOutput: 16_000 },
        input: { items: ids, instruction },
      });
      const failed = a < attempts;
      const finish = failed ? { raw: 'max_tokens', reason: 'length' } : { raw: 'end_turn', reason: 'stop' };
      const usage = { input: sourceTokens + 400, output: failed ? 16_000 : rng.range(700, 2_400) };
      this.emit({ kind: 'response', request: reqId, finish, usage });
      if (failed) {
        this.emit({
          kind: 'compaction/summary-error',
          id: cid,
          error: { code: 'truncated_summary', message: 'The summary hit the output ceiling; retrying with a tighter instruction.' },
          finish,
          usage,
        });
      }
    }
    const summary =
      '## Goal\n' +
      prose(rng, this.pools, 400) +
      '\n\n## Progress\n' +
      prose(rng, this.pools, this.range(p.summary)) +
      '\n\n## Next steps\n' +
      prose(rng, this.pools, 300);
    const summarySeq = this.emit({
      kind: 'compaction/summary',
      id: cid,
      summary: [{ type: 'text', text: summary }],
      sourceTokens,
      request: reqId,
      route: { model: 'claude-haiku-4-5' },
      finish: { raw: 'end_turn', reason: 'stop' },
      usage: { input: sourceTokens + 400, output: Math.round(summary.length / 4) },
    });
    const ckptId = `ckpt_${this.nCompaction}`;
    const ckptSeq = this.emit({
      kind: 'item',
      item: {
        id: ckptId,
        role: 'user',
        blocks: [{ type: 'text', text: summary }],
        origin: 'synthetic:compact',
        derivation: { kind: 'checkpoint', compactionId: cid, covers: ids, part: 'summary' },
      },
      op: { op: 'replace', from: ids[0], to: ids[ids.length - 1] },
      sources: [summarySeq],
    });
    this.live = [{ id: ckptId, seq: ckptSeq, role: 'user', chars: summary.length, masked: false }, ...this.live.slice(cut)];
    this.liveChars = this.live.reduce((n, x) => n + x.chars, 0);
    this.cacheTokens = 0;
    this.emit({ kind: 'compaction/end', id: cid, outcome: 'committed', postTokens: this.estTokens() });
  }

  /** One user turn and the agent loop that answers it. */
  turn(done: () => boolean): void {
    const rng = this.rng;
    const p = this.p;
    const userText = prose(rng, this.pools, this.range(p.userText)) + (rng.chance(0.1) ? ` ${rng.pick(NON_ASCII)}` : '');
    this.addItem({ id: this.nextId('u'), role: 'user', blocks: [{ type: 'text', text: userText }] }, userText.length);
    if (rng.chance(0.08)) {
      this.emit({
        kind: 'todo',
        todos: [
          { content: rng.pick(this.pools.sentences), status: 'in_progress' },
          { content: rng.pick(this.pools.sentences), status: 'pending' },
        ],
        after: this.live[this.live.length - 1]?.id ?? null,
      });
    }
    const steps = 1 + Math.min(30, Math.floor(-Math.log(1 - rng.next()) * 5));
    for (let s = 0; s < steps; s++) {
      if (this.estTokens() >= p.window * p.trigger) this.compact();
      if (rng.chance(0.03)) this.maybeMask();
      this.step(s === steps - 1);
      if (done()) return;
    }
  }

  stats(): Omit<GenerateStats, 'bytes' | 'events'> {
    return {
      items: this.nItem,
      requests: this.nReq,
      compactions: this.nCompaction,
      masks: this.nMask,
      records: this.nRecord,
      maxLiveItems: this.maxLive,
    };
  }
}

/**
 * Writes one synthetic session to `path`, a line at a time (a temporary file renamed at the end).
 * The same options give the same bytes.
 */
export function generateSession(path: string, options: GenerateOptions): GenerateStats {
  const profile = PROFILES[options.profile ?? 'standard'];
  const targetBytes = options.targetBytes ?? Number.POSITIVE_INFINITY;
  const targetEvents = options.targetEvents ?? Number.POSITIVE_INFINITY;
  if (!Number.isFinite(targetBytes) && !Number.isFinite(targetEvents))
    throw new Error('generateSession needs targetBytes or targetEvents.');
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.partial`;
  const fd = openSync(tmp, 'w');
  let stats: GenerateStats;
  try {
    const out = new LineWriter(fd);
    const w = new SessionWriter(out, options.seed, profile);
    w.start(`synthetic-${options.seed}`);
    let reportedBytes = 0;
    let reportedLines = 0;
    const done = (): boolean => out.lines >= targetEvents;
    while (out.approxBytes < targetBytes && !done()) {
      w.turn(done);
      if (options.onProgress && (out.approxBytes - reportedBytes >= 64 << 20 || out.lines - reportedLines >= 100_000)) {
        reportedBytes = out.approxBytes;
        reportedLines = out.lines;
        options.onProgress(out.approxBytes, out.lines);
      }
    }
    out.flush();
    stats = { bytes: out.bytes, events: out.lines, ...w.stats() };
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return stats;
}

// ---------------------------------------------------------------------------------------------
// The standard data set of the bench.

export interface DataSpec {
  readonly name: string;
  readonly file: string;
  readonly seed: number;
  readonly profile: ProfileName;
  readonly targetBytes?: number;
  readonly targetEvents?: number;
  readonly note: string;
}

export const DATA_SET: readonly DataSpec[] = [
  { name: 's10mb', file: 's10mb.jsonl', seed: 10, profile: 'standard', targetBytes: 10_000_000, note: '10 MB' },
  { name: 's100mb', file: 's100mb.jsonl', seed: 100, profile: 'standard', targetBytes: 100_000_000, note: '100 MB' },
  { name: 's1gb', file: 's1gb.jsonl', seed: 1000, profile: 'standard', targetBytes: 1_000_000_000, note: '1 GB' },
  { name: 'e1m', file: 'e1m.jsonl', seed: 1_000_000, profile: 'small', targetEvents: 1_000_000, note: '≈1 M small events' },
];

export interface DataMeta extends GenerateStats {
  readonly name: string;
  readonly generator: number;
  readonly seed: number;
  readonly profile: ProfileName;
  readonly targetBytes: number | null;
  readonly targetEvents: number | null;
}

export function metaPath(dataFile: string): string {
  return dataFile.replace(/\.jsonl$/, '') + '.meta.json';
}

/** The meta of a data file that is present, complete and made by this generator with these settings; else null. */
export function readyMeta(dir: string, spec: DataSpec): DataMeta | null {
  const file = join(dir, spec.file);
  const mp = metaPath(file);
  if (!existsSync(file) || !existsSync(mp)) return null;
  try {
    const meta = JSON.parse(readFileSync(mp, 'utf8')) as DataMeta;
    const same =
      meta.generator === GENERATOR_VERSION &&
      meta.seed === spec.seed &&
      meta.profile === spec.profile &&
      meta.targetBytes === (spec.targetBytes ?? null) &&
      meta.targetEvents === (spec.targetEvents ?? null);
    return same && statSync(file).size === meta.bytes ? meta : null;
  } catch {
    return null;
  }
}

/** Makes the data file unless a matching one is there; returns its meta. */
export function ensureData(dir: string, spec: DataSpec, opts: { force?: boolean; log?: (s: string) => void } = {}): DataMeta {
  const log = opts.log ?? ((s: string) => console.log(s));
  const ready = opts.force ? null : readyMeta(dir, spec);
  if (ready) {
    log(`  ${spec.file}: present (${(ready.bytes / 1e6).toFixed(1)} MB, ${ready.events.toLocaleString('en-US')} events), kept`);
    return ready;
  }
  const file = join(dir, spec.file);
  log(`  ${spec.file}: generating ${spec.note} (seed ${spec.seed}, profile ${spec.profile})…`);
  const t0 = performance.now();
  const stats = generateSession(file, {
    seed: spec.seed,
    profile: spec.profile,
    targetBytes: spec.targetBytes,
    targetEvents: spec.targetEvents,
    onProgress: (bytes, events) => {
      const s = (performance.now() - t0) / 1000;
      log(`    … ${(bytes / 1e6).toFixed(0)} MB, ${events.toLocaleString('en-US')} events, ${s.toFixed(0)} s`);
    },
  });
  const meta: DataMeta = {
    name: spec.name,
    generator: GENERATOR_VERSION,
    seed: spec.seed,
    profile: spec.profile,
    targetBytes: spec.targetBytes ?? null,
    targetEvents: spec.targetEvents ?? null,
    ...stats,
  };
  writeFileAtomic(metaPath(file), JSON.stringify(meta, null, 2) + '\n');
  const s = (performance.now() - t0) / 1000;
  log(
    `  ${spec.file}: ${(stats.bytes / 1e6).toFixed(1)} MB, ${stats.events.toLocaleString('en-US')} events, ${stats.requests.toLocaleString('en-US')} requests, ${stats.compactions} compactions in ${s.toFixed(1)} s (${(stats.bytes / 1e6 / s).toFixed(0)} MB/s)`,
  );
  return meta;
}

function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.partial`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

function main(argv: readonly string[]): void {
  let out = 'bench/data';
  let only: string | null = null;
  let force = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') out = argv[++i] ?? out;
    else if (a === '--only') only = argv[++i] ?? null;
    else if (a === '--force') force = true;
    else if (a === '--help' || a === '-h') {
      console.log(
        'usage: node dist/gen-sessions.js [--out DIR] [--only NAME] [--force]\n' +
          DATA_SET.map((d) => `  ${d.name.padEnd(7)} ${d.file.padEnd(13)} ${d.note}`).join('\n'),
      );
      return;
    } else {
      console.error(`gen-sessions: unknown argument ${a}`);
      process.exitCode = 2;
      return;
    }
  }
  const specs = DATA_SET.filter((d) => only === null || d.name === only || d.file === only);
  if (specs.length === 0) {
    console.error(`gen-sessions: no data file named ${only}; known: ${DATA_SET.map((d) => d.name).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  console.log(`Synthetic sessions in ${out}:`);
  for (const spec of specs) ensureData(out, spec, { force });
}

// Run as a CLI only when this file is the entry point (bench.ts bundles it as a library).
const entry = process.argv[1] ? basename(process.argv[1]) : '';
if (/^(gen-sessions|generate)\.(c?m?js|ts)$/.test(entry)) main(process.argv.slice(2));
