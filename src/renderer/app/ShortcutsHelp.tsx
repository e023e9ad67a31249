import { useEffect, useRef } from 'react';
import { KEY_BINDINGS } from '../session/keys';
import { useApp } from '../useApp';
import { isMac, LIBRARY_KEYS, SHORTCUTS } from './shortcuts';

const keyLabel = (k: string): string => ({ ArrowDown: '↓', ArrowUp: '↑', ArrowLeft: '←', ArrowRight: '→', Escape: 'Esc' })[k] ?? k;

/** The keyboard shortcuts overlay (`?`): the shell's, the library's, and the open session view's keys. */
export function ShortcutsHelp(): React.JSX.Element {
  const setHelp = useApp((s) => s.setHelp);
  const sessionOpen = useApp((s) => s.active !== null);
  const close = useRef<HTMLButtonElement>(null);
  const mac = isMac();

  useEffect(() => {
    // Focus moves into the dialog, and back to where it was when it closes.
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    close.current?.focus();
    return () => before?.focus();
  }, []);

  return (
    <div className="overlay" onClick={() => setHelp(false)}>
      <div
        className="dialog shortcuts"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        onClick={(e) => e.stopPropagation()}
      >
        <div className="dialog-head">
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <button type="button" ref={close} onClick={() => setHelp(false)}>
            Close (Esc)
          </button>
        </div>
        <h3>Everywhere</h3>
        <dl>
          {SHORTCUTS.map((s) => (
            <div key={s.action}>
              <dt>
                <kbd>{s.label(mac)}</kbd>
              </dt>
              <dd>{s.help}</dd>
            </div>
          ))}
        </dl>
        <h3>Library</h3>
        <dl>
          {LIBRARY_KEYS.map((k) => (
            <div key={k.label}>
              <dt>
                <kbd>{k.label}</kbd>
              </dt>
              <dd>{k.help}</dd>
            </div>
          ))}
        </dl>
        <h3>Session{sessionOpen ? '' : ' (when one is open)'}</h3>
        <dl>
          {KEY_BINDINGS.filter((b) => b.action.type !== 'help').map((b) => (
            <div key={b.help}>
              <dt>
                {b.keys.map((k) => (
                  <kbd key={k}>{keyLabel(k)}</kbd>
                ))}
              </dt>
              <dd>{b.help}</dd>
            </div>
          ))}
          <div>
            <dt>
              <kbd>Enter</kbd> <kbd>⇧Enter</kbd>
            </dt>
            <dd>in search: next / previous match (Alt+Enter: its request)</dd>
          </div>
        </dl>
      </div>
    </div>
  );
}
