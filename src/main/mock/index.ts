export * from './script';
export * from './record';
export * from './server';
export * from './sse';
export { PROTOCOLS, anthropicMessages, openaiResponses, ANTHROPIC_ID, RESPONSES_ID } from './protocols';
export type { Answer, ProtocolAdapter, RenderContext, Route, SseEvent } from './protocols';
