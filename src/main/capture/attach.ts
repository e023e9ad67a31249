import type { JoinedRequest, WireJoin } from '../../shared/model/wire-join';
import type { SessionInspector } from '../session/inspector';
import { decodeCall } from './decode';
import type { Capture, WireCall } from './exchange';
import { joinCaptures } from './join/join';
import { readCapture } from './read';

/*
 * Reads captures, decodes their exchanges and joins them to a session's default branch: what
 * `--capture FILE` does for every command that takes a session. An unreadable capture is an
 * error for the command (the user named it); a bad line inside one is skipped and counted.
 */

export class CaptureError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

export async function readCaptures(paths: readonly string[]): Promise<Capture[]> {
  const out: Capture[] = [];
  for (const p of paths) {
    const r = await readCapture(p);
    if (!r.ok) throw new CaptureError(p, r.error);
    out.push(r.value);
  }
  return out;
}

/** The decoded calls of the captures attached to an inspector, by capture and exchange index. */
const attached = new WeakMap<SessionInspector, readonly (readonly WireCall[])[]>();

export async function attachCaptures(ins: SessionInspector, captures: readonly Capture[]): Promise<WireJoin | null> {
  if (captures.length === 0) return null;
  const inputs = captures.map((capture) => ({ capture, calls: capture.exchanges.map(decodeCall) }));
  const join = await joinCaptures(ins, inputs);
  attached.set(
    ins,
    inputs.map((i) => i.calls),
  );
  ins.setWire(join);
  return join;
}

/** The wire call a joined request was, when it came from an attached capture. */
export function callOf(ins: SessionInspector, j: JoinedRequest): WireCall | null {
  if (j.capture === null || j.exchange === null) return null;
  return attached.get(ins)?.[j.capture]?.find((c) => c.exchange.index === j.exchange) ?? null;
}
