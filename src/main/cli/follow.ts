import type { FollowUpdate } from '../follow/diff';
import { SessionFollower, type FollowerOptions } from '../follow/follower';
import { firstSignal } from '../command/signals';
import { EXIT_CLEAN } from '../command/exit';
import type { Io } from '../command/io';
import { compactionLine, diagnosticLine, requestLine } from '../present/text';

/*
 * `palimpsest inspect FILE --follow [--json]`: what the session shows, then each change as the
 * harness writes it, until SIGINT or SIGTERM (then exit 0). The JSON lines carry the fields of the
 * matching entries of `inspect --json`, with their `type` first.
 */

function line(u: FollowUpdate, joined: boolean): string {
  switch (u.type) {
    case 'request':
      return `request     ${requestLine(u, joined)}`;
    case 'compaction':
      return `compaction  ${compactionLine(u)}`;
    case 'finding':
      return `finding     ${diagnosticLine(u)}`;
    case 'withdrawn':
      return `withdrawn   ${diagnosticLine(u)}`;
    case 'reloaded':
      return `reloaded    ${u.reason}: the session was read again from the start`;
  }
}

export async function followCommand(
  path: string,
  o: { json: boolean; branch?: string; captures: readonly string[]; open: FollowerOptions['open'] },
  io: Io,
): Promise<number> {
  const signal = firstSignal();
  let follower: SessionFollower | null = null;
  try {
    follower = await SessionFollower.start({
      path,
      open: o.open,
      ...(o.branch !== undefined ? { branch: o.branch } : {}),
      alsoWatch: o.captures,
      onUpdate: (u) => io.out(o.json ? JSON.stringify(u) : line(u, o.captures.length > 0)),
      onError: (message) => io.err(`palimpsest inspect --follow: ${message}; still following`),
    });
    // On stderr, so that the JSON lines stay JSON; a script may wait for it to know the first load is out.
    io.err(`Following ${path}; stop with Ctrl-C.`);
    await signal.stopped;
    return EXIT_CLEAN;
  } finally {
    await follower?.dispose();
    signal.release();
  }
}
