import { contextBridge, ipcRenderer } from 'electron';
import { API_METHODS, ipcChannel } from '../shared/api/methods';

/**
 * Exposes `window.palimpsest`: exactly the contract's methods, each one IPC call to the main
 * process's handlers. No raw ipcRenderer, no other channel, no Node.
 */
const api: Record<string, (input: unknown) => Promise<unknown>> = {};
for (const method of API_METHODS) {
  const channel = ipcChannel(method);
  api[method] = (input: unknown) => ipcRenderer.invoke(channel, input);
}
contextBridge.exposeInMainWorld('palimpsest', Object.freeze(api));
