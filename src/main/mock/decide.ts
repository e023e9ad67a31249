import { Fault, type FaultInput, Reply, type ReplyInput, type RequestDigest, type ScriptPlayer } from './script';

/*
 * What answers one scripted request: the programmatic answerer when there is one and it answers,
 * else the script. The answerer is code the caller wrote, so what it returns is validated like a
 * script step, and a throw or an invalid answer becomes a 500 the recording names
 * (`answerer_error`) instead of a crashed server.
 */

/** The request as the answerer sees it: the protocol adapter that took it and the parsed JSON body. */
export interface AnswererRequest {
  readonly protocol: string;
  readonly body: unknown;
}

/**
 * Answers a request in code, before the script is consulted: a reply, a fault, or null to let the
 * script answer. Called once per scripted request (not for count_tokens).
 */
export type Answerer = (digest: RequestDigest, request: AnswererRequest) => ReplyInput | FaultInput | Reply | Fault | null;

export type Decision = {
  readonly step: number | null;
  readonly label: string | null;
  /** What the recording calls it: `reply`, `fault:<kind>`, `answerer_error`. */
  readonly kind: string;
} & ({ readonly reply: Reply; readonly fault?: undefined } | { readonly fault: Fault; readonly reply?: undefined });

function answererError(message: string): Decision {
  return {
    step: null,
    label: 'answerer',
    kind: 'answerer_error',
    fault: { kind: 'http', status: 500, errorType: 'mock_answerer_error', message },
  };
}

function fromAnswerer(answer: Answerer, digest: RequestDigest, request: AnswererRequest): Decision | null {
  let out: ReturnType<Answerer>;
  try {
    out = answer(digest, request);
  } catch (e) {
    return answererError(`The mock answerer threw: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (out === null) return null;
  if ('kind' in out) {
    const f = Fault.safeParse(out);
    return f.success
      ? { step: null, label: 'answerer', kind: `fault:${f.data.kind}`, fault: f.data }
      : answererError(`The mock answerer returned an invalid fault: ${f.error.issues[0]?.message ?? 'invalid'}`);
  }
  const r = Reply.safeParse(out);
  return r.success
    ? { step: null, label: 'answerer', kind: 'reply', reply: r.data }
    : answererError(`The mock answerer returned an invalid reply: ${r.error.issues[0]?.message ?? 'invalid'}`);
}

export function decide(player: ScriptPlayer, answer: Answerer | undefined, digest: RequestDigest, request: AnswererRequest): Decision {
  const own = answer ? fromAnswerer(answer, digest, request) : null;
  if (own) return own;
  const c = player.choose(digest);
  if (c.fault) return { step: c.step, label: c.label, kind: `fault:${c.fault.kind}`, fault: c.fault };
  return { step: c.step, label: c.label, kind: 'reply', reply: c.reply };
}
