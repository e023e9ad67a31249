/*
 * Eval reports: the same ReportInput rendered as JSON (machines), Markdown (a pull-request
 * summary) and one self-contained HTML page (people). docs/eval.md, "Reports".
 */
export { reportJson } from './json';
export { reportMarkdown } from './markdown';
export { reportHtml } from './html';
export { verdict, type ReportInput } from './input';
