/** Exit codes of every command (docs/cli.md): 0 clean, 1 error-level findings, 2 unreadable input or bad usage. */
export const EXIT_CLEAN = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_UNUSABLE = 2;
