// Token accounting of model views (docs/tokens.md): pure, no node:*. Counting itself (encoders, the
// worker pool, the content-hash cache) lives in src/main/tokens.
export * from './categories';
export * from './encoding';
export * from './envelope';
export * from './hash';
export * from './policy';
export * from './prefix';
export * from './report';
export * from './units';
