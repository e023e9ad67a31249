export * from './script';
export * from './record';
export * from './server';
export * from '../providers/overflow-messages';
export type { Answerer } from './decide';
export { extractiveAnswerer, extractiveSummary, MOCK_SUMMARY_LABEL } from './extractive';
export { HANDOFF_SECTIONS } from './extract';
