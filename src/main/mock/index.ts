export * from './script';
export * from './record';
export * from './server';
export * from '../providers/overflow-messages';
export type { Answerer } from './decide';
export { extractiveSummary } from './extractive';
