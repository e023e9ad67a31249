import { useEffect } from 'react';
import { droppedPaths } from '../api';
import { useAppStore } from '../useApp';

const hasFiles = (e: DragEvent): boolean => e.dataTransfer?.types.includes('Files') ?? false;

/**
 * Files dropped anywhere on the window. The desktop app knows their paths (the preload asks
 * Electron) and opens them — the host still decides whether each may be opened. A browser does
 * not give a page the path of a dropped file, and Palimpsest reads sessions on the machine it runs
 * on, never in the page: there the drop is explained instead. Either way the browser never
 * navigates to the dropped file.
 */
export function useDropFiles(): void {
  const store = useAppStore();
  useEffect(() => {
    const onOver = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const onDrop = (e: DragEvent) => {
      if (!hasFiles(e) || !e.dataTransfer) return;
      e.preventDefault();
      const s = store.getState();
      const paths = droppedPaths(e.dataTransfer.files);
      s.activate(null);
      if (paths === null) {
        s.setNotice({
          kind: 'info',
          text:
            'Dropping files works in the desktop app only: a browser does not tell a page where a dropped file is on disk, ' +
            "and Palimpsest reads sessions on the machine it runs on, never inside the page. Type the file's path in the Path box instead.",
        });
        return;
      }
      if (paths.length === 0) {
        s.setNotice({ kind: 'error', text: 'What was dropped has no path on disk (it is not a file from a folder).' });
        return;
      }
      void (async () => {
        for (const p of paths) await store.getState().openPath(p);
      })();
    };
    window.addEventListener('dragover', onOver);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('drop', onDrop);
    };
  }, [store]);
}
