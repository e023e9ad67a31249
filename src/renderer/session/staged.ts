import { useEffect, useState } from 'react';
import { useSession } from './context';
import type { SessionState } from './store';

/**
 * The session view opens in two stages: the request list and the selected request's model view
 * first, then the raw history and the detail panels. Mounted at once, the second stage's renders,
 * layout reads and questions to the host (events, alignment, token meter and chart) came between
 * the view's head and its first window, and put the first model view of a real session past what
 * a user waits for (docs/performance.md, "The commands"). The panes keep their places meanwhile.
 */

/** The first selection's view is on screen, or there is none to wait for (no request, a failure). */
export function firstViewIn(s: SessionState): boolean {
  if (s.phase !== 'ready') return false;
  if (s.headError !== null || s.windowError !== null) return true;
  if (s.wire !== null) return s.wire.state !== 'loading';
  if (s.selected === null) return s.requests.length === 0 && (s.joined?.rows.length ?? 0) === 0;
  if (s.head === null || s.head.request.index !== s.selected) return false;
  return s.head.items === 0 || Object.keys(s.viewChunks).length > 0;
}

/**
 * The longest the second stage waits for the first: a selection whose view never comes in (a host
 * that does not answer) leaves the rest of the session to look at.
 */
export const SECOND_STAGE_MS = 1000;

/** True once the first stage is on screen and a frame has been drawn with it; stays true. */
export function useSecondStage(): boolean {
  const ready = useSession((s) => s.phase === 'ready');
  const shown = useSession(firstViewIn);
  const [second, setSecond] = useState(false);
  useEffect(() => {
    if (second || !ready) return;
    const go = () => setSecond(true);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let frame = 0;
    // After the frame that draws the first view: an animation frame's callback runs before the
    // frame is drawn, a timeout set there after it.
    if (shown) frame = requestAnimationFrame(() => (timer = setTimeout(go, 0)));
    else timer = setTimeout(go, SECOND_STAGE_MS);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [second, ready, shown]);
  return second;
}
