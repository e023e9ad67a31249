import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/*
 * An interactive client in a terminal, for the scenarios that need what only an interactive
 * session writes (Claude Code's `microcompact_boundary` record and local-command echoes: its print
 * mode logs neither). The terminal is tmux on a private socket, so nothing of the user's own tmux
 * is touched and disposing of it ends every process it started. tmux, not a pseudo-terminal
 * library: it is a Debian package rather than a native npm addon, it keeps the screen for us to
 * read, and `send-keys -l` types text as a user would.
 *
 * A turn is typed, then the session is "settled" when the mock, the log and the screen have not
 * changed for a while and the screen shows no sign of work in progress: an interactive client
 * never exits by itself, so this is how a turn ends.
 */

const exec = promisify(execFile);

export interface TerminalStart {
  readonly bin: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** What a settled turn left: whether it timed out, and the screen. */
export interface Settled {
  readonly timedOut: boolean;
  readonly ms: number;
  readonly screen: string;
}

let sessions = 0;

export class TerminalSession implements AsyncDisposable {
  private constructor(private readonly socket: string) {}

  /** Whether tmux can run here (the interactive scenarios need it; `.ci/run` installs it). */
  static async available(): Promise<boolean> {
    try {
      await exec('tmux', ['-V']);
      return true;
    } catch {
      return false;
    }
  }

  /** Starts the client in a 200×50 terminal; its environment is exactly `env` (`env -i`). */
  static async start(s: TerminalStart): Promise<TerminalSession> {
    const socket = `palimpsest-fidelity-${process.pid}-${++sessions}`;
    const envArgs = Object.entries(s.env).map(([k, v]) => `${k}=${v}`);
    // More than one argument after the options: tmux runs them without a shell, so nothing in
    // a path or a prompt is interpreted.
    await exec('tmux', [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'client',
      '-x',
      '200',
      '-y',
      '50',
      '-c',
      s.cwd,
      'env',
      '-i',
      ...envArgs,
      s.bin,
      ...s.argv,
    ]);
    const t = new TerminalSession(socket);
    // Keep the screen of a client that exits, to say why.
    await t.tmux(['set-option', '-t', 'client', 'remain-on-exit', 'on']).catch(() => undefined);
    return t;
  }

  private async tmux(args: readonly string[]): Promise<string> {
    const { stdout } = await exec('tmux', ['-L', this.socket, ...args], { maxBuffer: 4 * 1024 * 1024 });
    return stdout;
  }

  /** Types `text` and presses Enter. */
  async type(text: string): Promise<void> {
    await this.tmux(['send-keys', '-t', 'client', '-l', text]);
    // A pause between the text and Enter: a client that completes slash commands as they are
    // typed would otherwise take the Enter for its completion menu.
    await sleep(500);
    await this.tmux(['send-keys', '-t', 'client', 'Enter']);
  }

  /** The visible screen, as text. */
  async screen(): Promise<string> {
    return this.tmux(['capture-pane', '-p', '-t', 'client']).catch(
      (e: unknown) => `(no screen: ${e instanceof Error ? e.message : String(e)})`,
    );
  }

  /**
   * Waits until `state()` (what the caller watches: requests recorded, log sizes) and the screen
   * have not changed for `quietMs` while the screen matches `ready` and not `busy`, or
   * `timeoutMs` passes.
   */
  async settle(
    state: () => string,
    want: { readonly busy: RegExp; readonly ready: RegExp },
    quietMs: number,
    timeoutMs: number,
  ): Promise<Settled> {
    const t0 = Date.now();
    let last = '';
    let since = Date.now();
    for (;;) {
      await sleep(250);
      const screen = await this.screen();
      const now = `${state()}\u0000${screen}`;
      if (now !== last) {
        last = now;
        since = Date.now();
      } else if (Date.now() - since >= quietMs && want.ready.test(screen) && !want.busy.test(screen)) {
        return { timedOut: false, ms: Date.now() - t0, screen };
      }
      if (Date.now() - t0 > timeoutMs) return { timedOut: true, ms: Date.now() - t0, screen };
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.tmux(['kill-server']).catch(() => undefined);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
