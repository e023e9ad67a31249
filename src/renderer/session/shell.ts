import { useContext, useEffect, useMemo, useState } from 'react';
import type { PalimpsestApi, SessionSummary } from '../../shared/api/contract';
import { createApi } from '../api';
import { StoreContext } from '../useApp';

/**
 * What the session view takes from the app shell (UI-1's store), read defensively: the shell's API
 * when it has one, and `focus` — a search hit to jump to — when its store has that field. Neither
 * is required, so the view also runs on its own (tests, or before the shell offers them).
 */

export interface ShellFocus {
  readonly seq?: number;
  readonly request?: number;
  readonly nonce: number;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;

function readFocus(state: unknown): ShellFocus | null {
  if (!isObject(state) || !isObject(state.focus)) return null;
  const f = state.focus;
  if (typeof f.nonce !== 'number') return null;
  return {
    nonce: f.nonce,
    seq: typeof f.seq === 'number' ? f.seq : undefined,
    request: typeof f.request === 'number' ? f.request : undefined,
  };
}

function readApi(state: unknown): PalimpsestApi | null {
  if (!isObject(state) || !isObject(state.api)) return null;
  const api = state.api;
  return typeof api.getViewHead === 'function' && typeof api.listEvents === 'function' ? (api as unknown as PalimpsestApi) : null;
}

let fallback: PalimpsestApi | null = null;

/** The shell's API, else one of our own over the same transport. */
export function useShellApi(): PalimpsestApi {
  const shell = useContext(StoreContext);
  const api = shell ? readApi(shell.getState()) : null;
  if (api) return api;
  fallback ??= createApi();
  return fallback;
}

/** The shell's focus (null when it has none, or no shell). */
export function useShellFocus(): ShellFocus | null {
  const shell = useContext(StoreContext);
  const [focus, setFocus] = useState<ShellFocus | null>(() => (shell ? readFocus(shell.getState()) : null));
  useEffect(() => {
    if (!shell) return;
    setFocus(readFocus(shell.getState()));
    return shell.subscribe((s) => {
      const next = readFocus(s);
      setFocus((prev) => (prev?.nonce === next?.nonce ? prev : next));
    });
  }, [shell]);
  return focus;
}

/**
 * The summary of session `sessionId` the shell's tab holds now (its open's answer, or the last
 * change's): what the view can ask for before its own summary comes (null: no shell, or no tab).
 */
export function useShellSummary(sessionId: string): SessionSummary | null {
  const shell = useContext(StoreContext);
  // Read once per session shown, not followed: later changes come to the view as changes (useShellChange).
  return useMemo(() => {
    const state: unknown = shell?.getState();
    if (!isObject(state) || !Array.isArray(state.tabs)) return null;
    const tab: unknown = state.tabs.find((t: unknown) => isObject(t) && t.sessionId === sessionId);
    return isObject(tab) && isObject(tab.summary) ? (tab.summary as unknown as SessionSummary) : null;
  }, [shell, sessionId]);
}

/** A change of the session the shell's tab recorded (Follow, awaitSessionChange): its revision, summary, and whether the tab follows. */
export interface ShellChange {
  readonly revision: number;
  readonly summary: SessionSummary;
  readonly following: boolean;
  readonly reloaded: boolean;
}

function readChange(state: unknown, sessionId: string): ShellChange | null {
  if (!isObject(state) || !Array.isArray(state.tabs)) return null;
  const tab: unknown = state.tabs.find((t: unknown) => isObject(t) && t.sessionId === sessionId);
  if (!isObject(tab) || typeof tab.revision !== 'number' || !isObject(tab.summary)) return null;
  const change = isObject(tab.change) ? tab.change : {};
  return {
    revision: tab.revision,
    summary: tab.summary as unknown as SessionSummary,
    following: tab.following === true,
    reloaded: typeof change.reloaded === 'string',
  };
}

/** The last change of session `sessionId` its tab recorded (null: none since it was opened, or no shell). */
export function useShellChange(sessionId: string): ShellChange | null {
  const shell = useContext(StoreContext);
  const [change, setChange] = useState<ShellChange | null>(() => (shell ? readChange(shell.getState(), sessionId) : null));
  useEffect(() => {
    if (!shell) return;
    setChange(readChange(shell.getState(), sessionId));
    return shell.subscribe((s) => {
      const next = readChange(s, sessionId);
      setChange((prev) => (prev?.revision === next?.revision ? prev : next));
    });
  }, [shell, sessionId]);
  return change;
}
