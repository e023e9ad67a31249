/**
 * Light and dark themes. The preference (follow the system, or one of the two) is kept in
 * localStorage; the theme in effect is set as `data-theme` on <html>, where styles.css picks its
 * colours. "system" follows `prefers-color-scheme` as it changes.
 */

export type ThemePref = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

export const THEME_KEY = 'palimpsest.theme';
const PREFS: readonly ThemePref[] = ['system', 'light', 'dark'];

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch (err: unknown) {
    // Storage can be disabled (a browser setting, an opaque origin): themes then last one visit.
    console.warn('Palimpsest: localStorage is not available; the theme will not be remembered.', err);
    return null;
  }
}

export function loadThemePref(): ThemePref {
  const v = storage()?.getItem(THEME_KEY);
  return PREFS.find((p) => p === v) ?? 'system';
}

export function saveThemePref(pref: ThemePref): void {
  const s = storage();
  if (!s) return;
  if (pref === 'system') s.removeItem(THEME_KEY);
  else s.setItem(THEME_KEY, pref);
}

const darkQuery = (): MediaQueryList | null => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null);

export function systemTheme(): Theme {
  return darkQuery()?.matches ? 'dark' : 'light';
}

export function resolveTheme(pref: ThemePref): Theme {
  return pref === 'system' ? systemTheme() : pref;
}

/** The preference after a press of the toggle: the other theme than the one in effect, made explicit. */
export function toggledPref(pref: ThemePref): ThemePref {
  return resolveTheme(pref) === 'dark' ? 'light' : 'dark';
}

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

/** Calls `onChange` when the system's theme changes; returns the unsubscribe. */
export function watchSystemTheme(onChange: (t: Theme) => void): () => void {
  const q = darkQuery();
  if (!q) return () => undefined;
  const listener = () => onChange(q.matches ? 'dark' : 'light');
  q.addEventListener('change', listener);
  return () => q.removeEventListener('change', listener);
}
