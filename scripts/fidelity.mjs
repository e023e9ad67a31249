// The fidelity suite (`npm run test:fidelity`): runs the real Claude Code, Codex and Gemini CLIs against the
// mock provider, compares every model view Palimpsest rebuilds from their logs with the request
// actually sent, and writes docs/fidelity.md. See docs/fidelity.md and src/main/fidelity/main.ts.
//
//   node scripts/fidelity.mjs [--client claude-code|codex|gemini-cli|opencode] [--scenario NAME[,NAME…]] [--copy] [--no-run]
//                             [--versions all|current|older|V,V…] [--report PATH] [--allow-mismatch]
//   node scripts/fidelity.mjs --compat   (npm run docs:compat: docs/compatibility.md from the saved runs)
//
// Exit codes: 0 every request the logs record matched; 1 a mismatch (or a run went wrong);
// 2 bad usage; 3 a client could not be installed or run here (nothing proved for it).
import { spawnSync } from 'node:child_process';

// One build of every plain-Node bundle (scripts/build-cli.mjs), the runner among them.
const built = spawnSync(process.execPath, ['scripts/build-cli.mjs'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

const args = process.argv.slice(2);
if (!args.includes('--report')) args.push('--report', 'docs/fidelity.md');
const r = spawnSync(process.execPath, ['--enable-source-maps', 'dist/fidelity.js', ...args], { stdio: 'inherit' });
if (r.error) {
  console.error(`fidelity: ${r.error.message}`);
  process.exit(1);
}
process.exit(r.status ?? 1);
