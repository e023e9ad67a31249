import type { Block, ToolSchema } from '../../shared/model/content';
import type { Role } from '../../shared/model/item';
import { geminiResponseText } from '../wire/gemini';

/*
 * The system instruction, tools and turns of a captured Gemini API request (what @google/genai, and
 * so Gemini CLI, sends), for ./wire-view.ts. A `model` turn is the assistant's; a user turn's
 * function responses are a tool item of their own, before its other parts; a text part with
 * `thought: true` is reasoning; a part holding only a `thoughtSignature` carries nothing readable.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function partsOf(c: unknown): Obj[] {
  if (typeof c === 'string') return [{ text: c }];
  if (isObj(c)) return Array.isArray(c.parts) ? arr(c.parts).filter(isObj) : [c];
  return arr(c).flatMap((p) => (typeof p === 'string' ? [{ text: p }] : isObj(p) ? [p] : []));
}

function blockOf(p: Obj): Block | null {
  if (typeof p.text === 'string') return p.thought === true ? { type: 'reasoning', text: p.text } : { type: 'text', text: p.text };
  if (isObj(p.functionCall))
    return {
      type: 'tool_call',
      id: str(p.functionCall.id),
      name: str(p.functionCall.name),
      input: JSON.stringify(p.functionCall.args ?? {}),
    };
  if (isObj(p.functionResponse)) {
    const r = p.functionResponse.response;
    const b: Block = { type: 'tool_result', callId: str(p.functionResponse.id), content: [{ type: 'text', text: geminiResponseText(r) }] };
    if (isObj(r) && 'error' in r && !('output' in r)) b.isError = true;
    return b;
  }
  if (isObj(p.inlineData)) return { type: 'image', mediaType: str(p.inlineData.mimeType) || undefined };
  if (Object.keys(p).every((k) => k === 'thoughtSignature')) return null;
  return { type: 'opaque', label: `${Object.keys(p)[0] ?? 'part'} (as sent: ${JSON.stringify(p).length} chars)` };
}

export function fromGemini(b: Obj): { system: Block[]; tools: ToolSchema[]; items: { role: Role; blocks: Block[] }[] } {
  const system = partsOf(b.systemInstruction ?? b.system_instruction)
    .map(blockOf)
    .filter((x): x is Block => x !== null);
  const tools: ToolSchema[] = [];
  for (const t of arr(b.tools).filter(isObj))
    for (const d of arr(t.functionDeclarations).filter(isObj))
      tools.push({
        name: str(d.name),
        description: typeof d.description === 'string' ? d.description : undefined,
        inputSchema: d.parametersJsonSchema ?? d.parameters,
      });
  const items: { role: Role; blocks: Block[] }[] = [];
  for (const c of arr(b.contents).filter(isObj)) {
    const blocks = partsOf(c.parts)
      .map(blockOf)
      .filter((x): x is Block => x !== null);
    const results = blocks.filter((x) => x.type === 'tool_result');
    const rest = blocks.filter((x) => x.type !== 'tool_result');
    if (results.length > 0) items.push({ role: 'tool', blocks: results });
    if (rest.length > 0) items.push({ role: c.role === 'model' ? 'assistant' : 'user', blocks: rest });
  }
  return { system, tools, items };
}
