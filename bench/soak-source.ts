// The follow soak's endless source (bench/soak.ts, bench/follow-change.ts): a real session's lines,
// round after round, each round's ids suffixed so that a round reads as a session of its own.
import { createHash } from 'node:crypto';

/** Line `n` (0-based) of the endless source: `lines`, round after round, ids suffixed by round. */
export function sourceLine(lines: readonly string[], n: number): string {
  const round = Math.floor(n / lines.length);
  const line = lines[n % lines.length] as string;
  if (round === 0) return line;
  return line.replace(
    /\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-)[0-9a-f]{12}\b|\b((?:msg|toolu|req|call)_[A-Za-z0-9]+)/g,
    (m, uuid?: string) => (uuid ? `${uuid}${createHash('sha1').update(`${m}:${round}`).digest('hex').slice(0, 12)}` : `${m}r${round}`),
  );
}
