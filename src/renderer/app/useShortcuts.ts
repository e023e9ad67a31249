import { useContext, useEffect } from 'react';
import { isDesktop } from '../api';
import type { AppStore } from '../store';
import { StoreContext } from '../useApp';
import { isTyping, shortcutFor, type ShellAction } from './shortcuts';

/** Elements the shortcuts move the keyboard focus to. */
export const FOCUS_IDS = { pathBox: 'library-path', filter: 'library-filter', search: 'search-input' } as const;

/** Focuses (and selects the text of) an element that may only appear after the next render. */
export function focusSoon(id: string, tries = 10): void {
  const el = document.getElementById(id);
  if (el) {
    el.focus();
    if (el instanceof HTMLInputElement) el.select();
    return;
  }
  if (tries > 0) requestAnimationFrame(() => focusSoon(id, tries - 1));
}

function run(store: AppStore, action: ShellAction): void {
  const s = store.getState();
  switch (action) {
    case 'help':
      s.setHelp(!s.help);
      return;
    case 'search':
      if (s.active === null) return focusSoon(FOCUS_IDS.filter);
      s.openSearch();
      return focusSoon(FOCUS_IDS.search);
    case 'open':
      s.activate(null);
      if (isDesktop()) void s.pick('files');
      else focusSoon(FOCUS_IDS.pathBox);
      return;
    case 'library':
      return s.activate(null);
    case 'nextTab':
      return s.cycleTab(1);
    case 'prevTab':
      return s.cycleTab(-1);
    case 'closeTab':
      if (s.active !== null) s.closeTab(s.active);
      return;
    case 'theme':
      return s.toggleTheme();
  }
}

/**
 * The shell's keys, on the window in the capture phase: they are seen before any view's own
 * handler, and a key used here is marked (preventDefault) so that views leave it alone — the
 * session view's `?` included, since the overlay lists its keys too.
 */
export function useShortcuts(): void {
  const store = useContext(StoreContext);
  useEffect(() => {
    if (!store) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      if (e.key === 'Escape' && store.getState().help) {
        store.getState().setHelp(false);
        e.preventDefault();
        return;
      }
      const shortcut = shortcutFor(e, isTyping(e.target));
      if (!shortcut) return;
      e.preventDefault();
      run(store, shortcut.action);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [store]);
}
