// The count error of bounded pieces (docs/tokens.md): every text of the real sessions in fixtures/
// (Claude Code, Codex, DeepSeek Harness) counted with raw js-tiktoken `encode` and with the bounded
// encoder, per encoding.   npx tsx scripts/token-error.ts
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadSession } from '../src/main/session/load';
import { BoundedEncoder, loadTiktoken } from '../src/main/tokens/encoder';
import type { Block } from '../src/shared/model/content';

const ROOTS = ['fixtures/claude-code', 'fixtures/codex', 'fixtures/dsh'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'subagents' ? [] : files(p);
    return p.endsWith('.jsonl') && !n.startsWith('microcompact') ? [p] : [];
  });
}

function texts(blocks: readonly Block[], out: string[]): void {
  for (const b of blocks) {
    if (b.type === 'text' || b.type === 'reasoning') out.push(b.text);
    else if (b.type === 'tool_call') out.push(b.input);
    else if (b.type === 'tool_result') texts(b.content, out);
  }
}

const all: string[] = [];
for (const root of ROOTS) {
  for (const f of files(root)) {
    const s = await loadSession(f);
    for (const e of s.events) {
      if (e.kind !== 'item') continue;
      const full = await s.hydrate(e.seq);
      if (full.kind === 'item') texts(full.item.blocks, all);
    }
    await s.dispose();
  }
}
const chars = all.reduce((n, t) => n + t.length, 0);
console.log(`${all.length} texts, ${chars.toLocaleString('en-US')} characters`);
for (const enc of ['o200k_base', 'cl100k_base'] as const) {
  const { bpe, patStr } = await loadTiktoken(enc);
  const bounded = new BoundedEncoder(enc, bpe, patStr, { maxPieceBytes: 128 });
  let raw = 0;
  let ours = 0;
  let differ = 0;
  for (const t of all) {
    const a = bpe.encode(t, [], []).length;
    const b = bounded.count(t);
    raw += a;
    ours += b;
    if (a !== b) differ++;
  }
  console.log(
    `${enc}: raw ${raw}, bounded ${ours}, difference ${ours - raw} (${((100 * (ours - raw)) / raw).toFixed(3)} %), ${differ} texts differ`,
  );
}
