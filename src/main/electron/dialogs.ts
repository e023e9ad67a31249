import { stat } from 'node:fs/promises';
import { BrowserWindow, dialog } from 'electron';
import type { Confirm, PickKind, Picker } from '../library/library';
import type { AskEndpoint } from '../providers/endpoints';
import type { SaveExport } from '../api/handlers-export';

/**
 * The native dialogs behind the library (src/main/library/library.ts): what the user picks or
 * confirms here — in main, where the renderer cannot forge it — is what a window may open beyond
 * the sessions it was started with or discovered.
 */

const parent = (): BrowserWindow | undefined => BrowserWindow.getFocusedWindow() ?? BrowserWindow.getAllWindows()[0];

export const pickPaths: Picker = async (kind: PickKind) => {
  const options: Electron.OpenDialogOptions =
    kind === 'folder'
      ? { title: 'Open a folder of sessions', properties: ['openDirectory'] }
      : {
          title: 'Open session files',
          properties: ['openFile', 'multiSelections'],
          filters: [
            { name: 'Session logs', extensions: ['jsonl', 'zst', 'zstd'] },
            { name: 'All files', extensions: ['*'] },
          ],
        };
  const win = parent();
  const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  return r.canceled ? [] : r.filePaths;
};

/** A question is on screen: a window cannot queue up more of them (a compromised page spamming dialogs). */
let asking = false;

/**
 * One yes-or-no question in a native dialog; true only for the first button. A question asked
 * while another is on screen is a no, without asking.
 */
async function askOnce(options: Electron.MessageBoxOptions): Promise<boolean> {
  if (asking) return false;
  asking = true;
  try {
    const win = parent();
    const r = win ? await dialog.showMessageBox(win, options) : await dialog.showMessageBox(options);
    return r.response === 0;
  } finally {
    asking = false;
  }
}

/**
 * A path the window asked for that nothing allowed (typed in the path box, or dropped): the user
 * says yes or no. A path that does not exist is refused without asking.
 */
export const confirmPath: Confirm = async (path: string) => {
  if (asking || !(await stat(path).catch(() => null))) return false;
  return askOnce({
    type: 'question',
    buttons: ['Open', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    title: 'Open this file?',
    message: 'Open this file in Palimpsest?',
    detail: `${path}\n\nIt is not one of the sessions this window was started with, discovered or picked. Open it only if you typed or dropped this path yourself.`,
  });
};

/**
 * A re-run or eval would send a stored or environment key to an endpoint that is not its
 * provider's: the user says yes or no, in main, where a page cannot answer for them.
 */
export const confirmEndpoint: AskEndpoint = (q) =>
  askOnce({
    type: 'warning',
    buttons: ['Send the key', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    title: 'Send an API key to this endpoint?',
    message: `Send the key from ${q.keyFrom} to ${q.origin}?`,
    detail:
      `A ${q.provider} model pinned with this endpoint asks for that key. It is not the provider's own endpoint: ` +
      'send it only if you set up this endpoint yourself. Your answer holds until the app is closed.',
  });

/** Where to save an export: the user names the file here, in main; the page never does. */
export const saveExport: SaveExport = async (suggestedName, kind) => {
  const options: Electron.SaveDialogOptions = {
    title: kind === 'html' ? 'Export the session as HTML' : 'Export the compaction as Markdown',
    defaultPath: suggestedName,
    filters: kind === 'html' ? [{ name: 'HTML', extensions: ['html'] }] : [{ name: 'Markdown', extensions: ['md'] }],
    properties: ['showOverwriteConfirmation', 'createDirectory'],
  };
  const win = parent();
  const r = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
  return r.canceled || !r.filePath ? null : r.filePath;
};
