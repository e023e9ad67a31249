import { useCallback, useEffect, useRef } from 'react';
import { useApp } from '../useApp';

/**
 * How long the pointer rests on a row, or the keyboard's pick on one, before the host is told the
 * user is reaching for its session: a pointer sweeping across the list passes a row in less, so
 * only the row it stops on is read ahead.
 */
export const REACH_MS = 100;

export interface ReachProps {
  onPointerEnter(): void;
  onPointerLeave(): void;
  onPointerDown(): void;
  onFocus(): void;
  onBlur(): void;
}

/**
 * Handlers for a row or button that opens a session: the pointer resting on it, the keyboard's focus
 * resting on it, or a press (the click comes a tenth of a second later) hints the host to read the
 * session now (`prepare`), so that the open the click asks for takes a read under way or done.
 */
export function useReach(): (path: string, session?: string) => ReachProps {
  const prepare = useApp((s) => s.prepare);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const cancel = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
  }, []);
  useEffect(() => cancel, [cancel]);
  return useCallback(
    (path: string, session?: string) => {
      const rest = (): void => {
        cancel();
        timer.current = setTimeout(() => prepare(path, session), REACH_MS);
      };
      return {
        onPointerEnter: rest,
        onPointerLeave: cancel,
        onPointerDown: () => {
          cancel();
          prepare(path, session);
        },
        onFocus: rest,
        onBlur: cancel,
      };
    },
    [cancel, prepare],
  );
}

/**
 * The keyboard's pick in a list (`path` null: none): once it has rested on a row for REACH_MS while
 * the list has the focus, the host is hinted to read that row's session.
 */
export function useReachByKeyboard(path: string | null, session: string | undefined, focused: () => boolean): void {
  const prepare = useApp((s) => s.prepare);
  useEffect(() => {
    if (path === null) return;
    const t = setTimeout(() => {
      if (focused()) prepare(path, session);
    }, REACH_MS);
    return () => clearTimeout(t);
  }, [path, session, focused, prepare]);
}
