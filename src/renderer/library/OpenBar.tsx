import { useState } from 'react';
import { isDesktop } from '../api';
import { FOCUS_IDS } from '../app/useShortcuts';
import { useApp } from '../useApp';
import { OpeningLine } from './OpeningLine';

/**
 * Opening sessions: the native dialogs (desktop app; the web host answers that it cannot show one)
 * and a path box that works everywhere — the host decides which paths may be opened.
 */
export function OpenBar(): React.JSX.Element {
  const pick = useApp((s) => s.pick);
  const openPath = useApp((s) => s.openPath);
  const opening = useApp((s) => s.opening);
  const [path, setPath] = useState('');
  const desktop = isDesktop();

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (await openPath(path)) setPath('');
  };

  return (
    <section className="open-bar" aria-label="Open a session">
      <div className="open-buttons">
        <button
          type="button"
          onClick={() => void pick('files')}
          title={desktop ? 'Choose session files' : 'Not available in a browser: type a path'}
        >
          Open files…
        </button>
        <button
          type="button"
          onClick={() => void pick('folder')}
          title={desktop ? 'Choose a folder of sessions to list' : 'Not available in a browser: type a path'}
        >
          Open folder…
        </button>
      </div>
      <form className="path-form" onSubmit={(e) => void submit(e)}>
        <label htmlFor={FOCUS_IDS.pathBox}>Path</label>
        <input
          id={FOCUS_IDS.pathBox}
          type="text"
          value={path}
          onChange={(e) => setPath(e.target.value)}
          placeholder="/path/to/session.jsonl"
          spellCheck={false}
          autoComplete="off"
        />
        <button type="submit" disabled={path.trim() === ''}>
          Open
        </button>
      </form>
      <p className="muted small drop-hint">
        {desktop
          ? 'Or drop session files anywhere on the window.'
          : 'Dropping files needs the desktop app: a browser does not tell a page where a file is on disk.'}
      </p>
      {opening.length > 0 && (
        <div className="opening" role="status">
          {opening.map((p) => (
            <OpeningLine key={p} path={p} />
          ))}
        </div>
      )}
    </section>
  );
}
