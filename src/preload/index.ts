import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { API_METHODS, ipcChannel } from '../shared/api/methods';

/**
 * Exposes `window.palimpsest`: exactly the contract's methods, each one IPC call to the main
 * process's handlers. No raw ipcRenderer, no other channel, no Node.
 *
 * And `window.palimpsestFiles.pathOf(file)`: the path on disk of a File the user dropped on the
 * window (Electron ≥32 no longer sets `File.path`). It sends nothing anywhere; a File with a path
 * comes only from the user's own gesture, and opening it still goes through the contract, where
 * main decides whether the path may be opened.
 */
const api: Record<string, (input: unknown) => Promise<unknown>> = {};
for (const method of API_METHODS) {
  const channel = ipcChannel(method);
  api[method] = (input: unknown) => ipcRenderer.invoke(channel, input);
}
contextBridge.exposeInMainWorld('palimpsest', Object.freeze(api));

contextBridge.exposeInMainWorld(
  'palimpsestFiles',
  Object.freeze({
    pathOf: (file: unknown): string => (file instanceof File ? webUtils.getPathForFile(file) : ''),
  }),
);
