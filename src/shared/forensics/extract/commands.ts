import { inputFields } from './json-input';

/*
 * Commands: what a shell tool call ran (Claude Code's Bash {command}, Codex's shell {command: [...]}
 * and exec_command {cmd}), and command lines written in prose ("$ npm test", or an inline code span
 * that starts with a well-known program).
 */

const PROGRAMS =
  'npm|npx|pnpm|yarn|node|git|python3?|pip|uv|pytest|cargo|go|make|docker|kubectl|bash|sh|rg|grep|sed|ls|cd|cat|curl|tsc|vitest|jest|gh';
const INLINE = new RegExp(`\`((?:${PROGRAMS})\\s[^\`\\n]{1,200})\``, 'g');
const PROMPT_LINE = /^\s*\$\s+(\S[^\n]{1,200})$/gm;

/** Shell wrappers a harness adds around the command the model wrote (Codex: ["bash", "-lc", "…"]). */
function unwrap(cmd: string): string {
  return cmd.replace(/^(?:ba|z)?sh\s+-l?c\s+/, '').replace(/^(['"])([\s\S]*)\1$/, '$2');
}

/** The command a shell tool call ran; null for other tools. */
export function commandOfCall(input: string): string | null {
  const f = inputFields(input).find((x) => x.key === 'command' || x.key === 'cmd');
  if (!f) return null;
  const c = unwrap(f.value.trim()).trim();
  return c.length >= 2 && c.length <= 2_000 ? c : null;
}

/** Command lines written in prose. */
export function commandsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(INLINE)) out.push((m[1] as string).trim());
  for (const m of text.matchAll(PROMPT_LINE)) out.push((m[1] as string).trim());
  return out;
}
