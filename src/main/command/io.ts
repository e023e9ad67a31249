/** Where a command writes: its output and its problems (the process's stdout and stderr, or a test's buffers). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}
