import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { EventBody } from '../../../shared/model/event';
import type { JsonLine } from '../../reader/types';
import { readRegularHead } from '../../files/open-regular';
import type { FileImport, FileInfo, ImportSink, SessionImport } from '../types';
import { GeminiFileImport, type GeminiBranch } from './file';
import { parentFromPath } from './paths';

/**
 * A Gemini CLI chat with its subagents' chats, which the recorder writes to
 * `chats/<parentSessionId>/<sessionId>.jsonl` (older `<6 chars>.json`; chatRecordingService.ts
 * `initialize`): opened as one session, each subagent a branch linked to the chat (as Claude Code's
 * subagent files are joined: `sessionFiles` names them, one session import reads them all).
 */

/** The subagent files of the main chat at `path`, in name order; [] for a subagent file or a chat without any. */
export async function geminiSessionFiles(path: string, isDirectory: boolean): Promise<string[] | null> {
  if (isDirectory) return null;
  if (parentFromPath(path) !== null || !/[\\/]chats[\\/]session-[^\\/]+\.jsonl?$/.test(path)) return [];
  const id = await sessionIdOf(path);
  if (id === null) return [];
  const dir = join(dirname(path), id);
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => /\.jsonl?$/.test(n))
    .sort()
    .map((n) => join(dir, n));
}

/** The `sessionId` a chat's first 4 KiB name (its metadata line's, or a legacy document's), or null. */
async function sessionIdOf(path: string): Promise<string | null> {
  const head = await readRegularHead(path, 4096).catch(() => null);
  if (!head) return null;
  return /"sessionId":\s*"([^"\\/]+)"/.exec(head.toString('utf8'))?.[1] ?? null;
}

/** The chat and its subagents: the first file is the chat, every later one a subagent's branch. */
export class GeminiSession implements SessionImport {
  /** The chat's last line, where the closing `leaf` record is located. */
  private mainLast: JsonLine | null = null;
  private subagents = 0;

  constructor(private readonly sink: ImportSink) {}

  file(file: FileInfo): FileImport {
    if (file.index === 0) {
      const main = new GeminiFileImport(this.sink, file.path);
      return {
        line: (l) => {
          this.mainLast = l;
          main.line(l);
        },
        end: () => main.end(),
      };
    }
    this.subagents++;
    const name = basename(file.path).replace(/\.jsonl?$/i, '');
    // The recorder does not record which call spawned the subagent: the branch hangs off the
    // chat as read so far (its last event), its history its own (a subagent sees its own prompt).
    const branch: GeminiBranch = { key: `subagent-${name}`, label: `subagent ${name}`, parentSeq: Math.max(0, this.sink.nextSeq - 1) };
    return new GeminiFileImport(new BranchSink(this.sink, branch.key), file.path, branch);
  }

  /**
   * The branch with the newest event is the one shown first: after the subagents, a record on
   * the chat makes it the chat again (as Claude Code's session import ends on its main leaf).
   */
  end(): void {
    if (this.subagents > 0 && this.mainLast)
      this.sink.emit(
        { kind: 'record', type: 'leaf', summary: 'the chat is the main branch; its subagents are branches of it' },
        this.mainLast,
        0,
      );
  }
}

/** The sink of a subagent's file: every event it emits is on its branch. */
class BranchSink implements ImportSink {
  constructor(
    private readonly sink: ImportSink,
    private readonly branch: string,
  ) {}

  get nextSeq(): number {
    return this.sink.nextSeq;
  }

  emit(event: EventBody, from: JsonLine, fileIndex?: number): number {
    event.branch = this.branch;
    return this.sink.emit(event, from, fileIndex);
  }

  diagnostic(d: Parameters<ImportSink['diagnostic']>[0]): void {
    this.sink.diagnostic(d);
  }
}
