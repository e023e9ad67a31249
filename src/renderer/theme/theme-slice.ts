import type { GetState, SetState } from '../store';
import { loadThemePref, resolveTheme, saveThemePref, toggledPref, type Theme, type ThemePref } from './theme';

/** The theme preference (persisted) and the theme in effect; main.tsx applies it to the page. */

export interface ThemeSlice {
  themePref: ThemePref;
  theme: Theme;
  setThemePref(pref: ThemePref): void;
  /** Switches to the other theme than the one in effect. */
  toggleTheme(): void;
  /** The system's theme changed (it matters while the preference is "system"). */
  systemThemeChanged(): void;
}

export function themeSlice(set: SetState, get: GetState): ThemeSlice {
  const pref = loadThemePref();
  return {
    themePref: pref,
    theme: resolveTheme(pref),

    setThemePref(p) {
      saveThemePref(p);
      set({ themePref: p, theme: resolveTheme(p) });
    },

    toggleTheme() {
      get().setThemePref(toggledPref(get().themePref));
    },

    systemThemeChanged() {
      set({ theme: resolveTheme(get().themePref) });
    },
  };
}
