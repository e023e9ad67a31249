import { readFileSync } from 'node:fs';

/** Every string of a real Claude Code session's lines, shorter than `maxChars` (texts to count, as a session has them). */
export function sessionTexts(maxChars: number, fixture = 'claude-code/short.jsonl'): string[] {
  const raw = readFileSync(new URL(`../../../fixtures/${fixture}`, import.meta.url), 'utf8');
  const texts: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.length > 0 && v.length < maxChars) texts.push(v);
    } else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') Object.values(v).forEach(collect);
  };
  for (const line of raw.split('\n')) if (line.trim()) collect(JSON.parse(line));
  return texts;
}
