import { type NormRequest, type NormTool, type Part, type Role, canonicalJson, joinTextRuns } from './normalize';

/*
 * A Gemini API request body (`generateContent` / `streamGenerateContent`, what @google/genai and so
 * Gemini CLI send) in the common shape of ./normalize.ts:
 *  - `systemInstruction` (a string, a content or a list of parts) is the system part list;
 *  - `contents` are the messages: role `model` is the assistant, `user` the user, and a
 *    `functionResponse` part is a part of role `tool`; a text part with `thought: true` is
 *    reasoning; a part holding only a `thoughtSignature` carries nothing readable and is left out;
 *  - a function call's `args` are compared as canonical JSON, and a function response as the text
 *    Palimpsest shows for it (its `output`, else its `error`, else its `content`, else its JSON);
 *  - call ids are not compared (`id: ''` on both sides): the API pairs a response with its call by
 *    name and order, and Gemini CLI makes the ids up (a call on the wire may carry none);
 *  - `tools` are the `functionDeclarations` of every tool entry (`parameters` or
 *    `parametersJsonSchema`); another kind of tool (`googleSearch`, `codeExecution`) is named by its key.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The text Palimpsest shows for a function response (the Gemini CLI importer reads it the same way). */
export function geminiResponseText(resp: unknown): string {
  if (isObj(resp)) {
    if (typeof resp.output === 'string') return resp.output;
    if (typeof resp.error === 'string') return resp.error;
    if (typeof resp.content === 'string') return resp.content;
  }
  if (typeof resp === 'string') return resp;
  return resp === undefined ? '' : JSON.stringify(resp);
}

function partOf(role: Role, p: Obj): Part | null {
  if (typeof p.text === 'string')
    return p.thought === true ? { role, type: 'reasoning', text: p.text, redacted: false } : { role, type: 'text', text: p.text };
  if (isObj(p.functionCall))
    return {
      role: 'assistant',
      type: 'tool_call',
      id: '',
      name: str(p.functionCall.name),
      input: canonicalJson(p.functionCall.args ?? {}),
    };
  if (isObj(p.functionResponse)) {
    const r = p.functionResponse.response;
    return {
      role: 'tool',
      type: 'tool_result',
      callId: '',
      content: geminiResponseText(r),
      isError: isObj(r) && 'error' in r && !('output' in r),
    };
  }
  if (isObj(p.inlineData)) return { role, type: 'image' };
  if (isObj(p.fileData)) return { role, type: 'opaque', label: `file ${str(p.fileData.fileUri) || '(no uri)'}` };
  if (isObj(p.executableCode) && typeof p.executableCode.code === 'string') return { role, type: 'text', text: p.executableCode.code };
  if (isObj(p.codeExecutionResult) && typeof p.codeExecutionResult.output === 'string')
    return { role, type: 'text', text: p.codeExecutionResult.output };
  const { thoughtSignature: _sig, ...rest } = p;
  if (Object.keys(rest).length === 0) return null;
  return { role, type: 'other', kind: Object.keys(rest)[0] ?? '', json: canonicalJson(rest) };
}

function partsOf(content: unknown): Obj[] {
  if (typeof content === 'string') return [{ text: content }];
  if (Array.isArray(content)) return content.flatMap((p) => (typeof p === 'string' ? [{ text: p }] : isObj(p) ? [p] : []));
  if (isObj(content)) return Array.isArray(content.parts) ? partsOf(content.parts) : [content];
  return [];
}

function toolsOf(v: unknown): NormTool[] {
  const out: NormTool[] = [];
  for (const t of arr(v).filter(isObj)) {
    const decls = arr(t.functionDeclarations ?? t.function_declarations).filter(isObj);
    if (decls.length === 0) {
      for (const k of Object.keys(t)) out.push({ name: k, description: null, schema: null });
      continue;
    }
    for (const d of decls) {
      const schema = d.parametersJsonSchema ?? d.parameters;
      out.push({
        name: str(d.name),
        description: typeof d.description === 'string' ? d.description : null,
        schema: schema === undefined ? null : canonicalJson(schema),
      });
    }
  }
  return out;
}

/** A Gemini API request body in the common shape (the model is in the path, not the body). */
export function geminiRequest(b: Obj): NormRequest {
  const sys = b.systemInstruction ?? b.system_instruction;
  const system: Part[] = [];
  for (const p of partsOf(sys)) {
    const part = partOf('system', p);
    if (part) system.push(part);
  }
  const parts: Part[] = [];
  for (const c of arr(b.contents).filter(isObj)) {
    const role: Role = c.role === 'model' ? 'assistant' : 'user';
    for (const p of partsOf(c.parts)) {
      const part = partOf(role, p);
      if (part) parts.push(part);
    }
  }
  return { system: joinTextRuns(system), parts: joinTextRuns(parts), tools: toolsOf(b.tools), model: null, notes: [] };
}

/**
 * Whether a request's last user text is Gemini CLI's compression instruction (the summary call,
 * "… generate the <state_snapshot>.", and from some version on its verification, "Critically
 * evaluate the <state_snapshot> …"): a call the file never records, never an agent turn.
 */
export function isGeminiCompressionCall(lastUser: string): boolean {
  return (
    /<state_snapshot>(?:\.|\s+you just generated|\s+again\.)\s*$/.test(lastUser) ||
    lastUser.includes('Critically evaluate the <state_snapshot>')
  );
}
