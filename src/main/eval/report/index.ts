/*
 * Eval reports: the same ReportInput rendered as JSON (machines), Markdown (a pull-request
 * summary) and one self-contained HTML page (people). docs/eval.md, "Reports".
 */
export { reportJson, REPORT_FORMAT, REPORT_VERSION, type JsonReport } from './json';
export { reportMarkdown } from './markdown';
export { reportHtml } from './html';
export { verdict, NOT_PROVEN, type ReportFact, type ReportFactsFile, type ReportInput } from './input';
