import { canonicalPath } from '../files/canonical';
import { attachCaptures } from '../capture/attach';
import { discoverCaptures, type DiscoverOptions } from '../capture/discover';
import type { Capture } from '../capture/exchange';
import { logSessionId } from '../capture/join/join';
import { readCapture } from '../capture/read';
import type { SessionInspector } from '../session/inspector';
import { ApiFailure } from './sessions';

/*
 * Joins a session being opened with its captures: the ones the caller named (each must be
 * readable: the user asked for it) and the ones discovery finds (src/main/capture/discover.ts; one
 * that cannot be read, or joins nothing, is left out quietly — nobody asked for it). Runs before
 * the diagnostics, which read the join.
 */

export async function joinSessionCaptures(
  ins: SessionInspector,
  sessionPath: string,
  given: readonly string[],
  discovery: DiscoverOptions | null,
): Promise<void> {
  const named = await Promise.all(given.map(canonicalPath));
  const found = discovery ? await discoverCaptures(sessionPath, logSessionId(ins), discovery) : [];
  const seen = new Set(named);
  const captures: Capture[] = [];
  for (const p of named) {
    const r = await readCapture(p);
    if (!r.ok) throw new ApiFailure('UNREADABLE', `${r.error}.`);
    captures.push(r.value);
  }
  for (const p of found) {
    const real = await canonicalPath(p);
    if (seen.has(real)) continue;
    seen.add(real);
    const r = await readCapture(p);
    if (r.ok) captures.push(r.value);
  }
  const join = await attachCaptures(ins, captures);
  // Discovered captures that joined nothing would only turn the request list into a joined one.
  if (join && named.length === 0 && join.captures.every((c) => c.taken === 0)) ins.setWire(null);
}
