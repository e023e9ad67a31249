/**
 * The session view's keys. One table: the key handler reads it, and the key help shows it, so the
 * two cannot disagree. Keys are ignored while typing in a field and with Alt, Ctrl or Meta held.
 */

export type KeyAction =
  | { readonly type: 'request'; readonly delta: number }
  | { readonly type: 'edge'; readonly to: 'first' | 'last' }
  | { readonly type: 'marker'; readonly kind: 'compaction' | 'diagnostic'; readonly dir: 1 | -1 }
  | { readonly type: 'clear' }
  | { readonly type: 'export' }
  | { readonly type: 'help' };

export interface KeyBinding {
  readonly keys: readonly string[];
  readonly action: KeyAction;
  readonly help: string;
}

export const KEY_BINDINGS: readonly KeyBinding[] = [
  { keys: ['j', 'ArrowDown', 'ArrowRight'], action: { type: 'request', delta: 1 }, help: 'next request' },
  { keys: ['k', 'ArrowUp', 'ArrowLeft'], action: { type: 'request', delta: -1 }, help: 'previous request' },
  { keys: ['PageDown'], action: { type: 'request', delta: 10 }, help: '10 requests on' },
  { keys: ['PageUp'], action: { type: 'request', delta: -10 }, help: '10 requests back' },
  { keys: ['Home'], action: { type: 'edge', to: 'first' }, help: 'first request' },
  { keys: ['End'], action: { type: 'edge', to: 'last' }, help: 'last request' },
  { keys: ['c'], action: { type: 'marker', kind: 'compaction', dir: 1 }, help: 'next compaction (first view after it)' },
  { keys: ['C'], action: { type: 'marker', kind: 'compaction', dir: -1 }, help: 'previous compaction (Shift+C)' },
  { keys: ['d'], action: { type: 'marker', kind: 'diagnostic', dir: 1 }, help: 'next diagnostic' },
  { keys: ['D'], action: { type: 'marker', kind: 'diagnostic', dir: -1 }, help: 'previous diagnostic (Shift+D)' },
  { keys: ['Escape'], action: { type: 'clear' }, help: 'clear the selected item and its highlights' },
  { keys: ['e'], action: { type: 'export' }, help: 'export the session or a compaction (redacted)…' },
  { keys: ['?'], action: { type: 'help' }, help: 'show or hide this list' },
];

const BY_KEY = new Map<string, KeyAction>(KEY_BINDINGS.flatMap((b) => b.keys.map((k) => [k, b.action] as const)));

export interface KeyLike {
  readonly key: string;
  readonly altKey: boolean;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
}

/** The action of a key press, or null when the session view does not handle it. */
export function actionFor(e: KeyLike): KeyAction | null {
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  return BY_KEY.get(e.key) ?? null;
}

/** Typing in a field (a policy spec, a request number) must not step the view. */
export function isTyping(target: EventTarget | null): boolean {
  if (typeof HTMLElement === 'undefined' || !(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target.tagName === 'TEXTAREA' || target.tagName === 'SELECT') return true;
  // A range input (the timeline slider) steps with the same keys: let ours handle it.
  return target.tagName === 'INPUT' && (target as HTMLInputElement).type !== 'range';
}
