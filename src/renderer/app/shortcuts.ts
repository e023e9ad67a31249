/**
 * The app shell's keyboard shortcuts. One table: the key handler (./useShortcuts.ts) reads it and
 * the shortcuts overlay shows it, so the two cannot disagree. The session view's own keys are in
 * ../session/keys.ts; the overlay lists those too while a session is open.
 */

export type ShellAction = 'help' | 'search' | 'open' | 'library' | 'nextTab' | 'prevTab' | 'closeTab' | 'theme';

export interface KeyPress {
  readonly key: string;
  readonly code: string;
  readonly altKey: boolean;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly shiftKey: boolean;
}

export interface Shortcut {
  readonly action: ShellAction;
  /** How to press it, for people: "Ctrl+F" ("⌘F" on a Mac). */
  readonly label: (mac: boolean) => string;
  readonly help: string;
  /** Also while typing in a field. */
  readonly whileTyping: boolean;
  readonly matches: (e: KeyPress) => boolean;
}

const mod = (e: KeyPress): boolean => (e.ctrlKey || e.metaKey) && !e.altKey;
const plain = (e: KeyPress): boolean => !e.ctrlKey && !e.metaKey && !e.altKey;
const alt = (e: KeyPress, code: string): boolean => e.altKey && !e.ctrlKey && !e.metaKey && e.code === code;
const modLabel = (mac: boolean, key: string): string => (mac ? `⌘${key}` : `Ctrl+${key}`);
const altLabel = (mac: boolean, key: string): string => (mac ? `⌥${key}` : `Alt+${key}`);

// Browsers keep Ctrl+W, Ctrl+Tab and Ctrl+PageUp/PageDown for their own tabs: the shell's tabs use Alt and [ ].
export const SHORTCUTS: readonly Shortcut[] = [
  { action: 'help', label: () => '?', help: 'show or hide these shortcuts', whileTyping: false, matches: (e) => plain(e) && e.key === '?' },
  {
    action: 'search',
    label: (m) => modLabel(m, 'F'),
    help: 'search in the open session (in the library: filter the list)',
    whileTyping: true,
    matches: (e) => mod(e) && !e.shiftKey && e.key.toLowerCase() === 'f',
  },
  {
    action: 'open',
    label: (m) => modLabel(m, 'O'),
    help: 'open a session: the file dialog (desktop) or the path box',
    whileTyping: true,
    matches: (e) => mod(e) && !e.shiftKey && e.key.toLowerCase() === 'o',
  },
  { action: 'library', label: (m) => altLabel(m, 'L'), help: 'go to the library', whileTyping: true, matches: (e) => alt(e, 'KeyL') },
  { action: 'nextTab', label: () => ']', help: 'next tab', whileTyping: false, matches: (e) => plain(e) && e.key === ']' },
  { action: 'prevTab', label: () => '[', help: 'previous tab', whileTyping: false, matches: (e) => plain(e) && e.key === '[' },
  { action: 'closeTab', label: (m) => altLabel(m, 'W'), help: 'close the open session', whileTyping: true, matches: (e) => alt(e, 'KeyW') },
  {
    action: 'theme',
    label: (m) => altLabel(m, 'T'),
    help: 'switch between light and dark',
    whileTyping: true,
    matches: (e) => alt(e, 'KeyT'),
  },
];

/** Keys of the library's list, shown in the overlay (the list handles them itself). */
export const LIBRARY_KEYS: readonly { readonly label: string; readonly help: string }[] = [
  { label: '/', help: 'filter the sessions' },
  { label: '↑ ↓ Home End', help: 'move in the list' },
  { label: 'Enter', help: 'open the selected session' },
];

export function isTyping(target: EventTarget | null): boolean {
  if (typeof HTMLElement === 'undefined' || !(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName);
}

export function shortcutFor(e: KeyPress, typing: boolean): Shortcut | null {
  return SHORTCUTS.find((s) => (s.whileTyping || !typing) && s.matches(e)) ?? null;
}

export const isMac = (): boolean => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
