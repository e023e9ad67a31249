// `npm start`: build, then open the bundled sample session (or the files given after `--`).
// - With an Electron binary: the desktop app.
// - Without one (the binary cannot be downloaded on every machine): the web host on 127.0.0.1,
//   printing the URL to open in a browser.
// The binary is found by looking at files only. Never `require('electron')` here: on a machine
// without the binary that tries to download it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLE = 'fixtures/palimpsest/basic.jsonl';

const say = (text) => process.stderr.write(`palimpsest start: ${text}\n`);

/** The Electron executable, or null with the reason. */
function findElectron() {
  const override = process.env.ELECTRON_EXEC_PATH;
  if (override) {
    return existsSync(override) ? { path: override } : { path: null, reason: `ELECTRON_EXEC_PATH names ${override}, which does not exist` };
  }
  const pkg = join(root, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return { path: null, reason: 'node_modules/electron/path.txt is missing (the binary was never downloaded)' };
  const exe = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(exe) ? { path: exe } : { path: null, reason: `${exe} does not exist` };
}

function hasDisplay() {
  if (process.platform !== 'linux') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** Run a child to completion, forwarding Ctrl-C / SIGTERM to it; exit with its code. */
function runForwarding(command, args) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
  const forward = (signal) => () => child.kill(signal);
  process.on('SIGINT', forward('SIGINT'));
  process.on('SIGTERM', forward('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)));
  child.on('error', (err) => {
    say(`cannot run ${command}: ${err.message}`);
    process.exit(2);
  });
}

// npm runs scripts in the package root; paths the user typed are relative to where they typed them.
const userCwd = process.env.INIT_CWD ?? process.cwd();
const given = process.argv.slice(2).map((p) => {
  const abs = resolve(userCwd, p);
  const rel = relative(root, abs);
  return rel.startsWith('..') ? abs : rel;
});
const sessions = given.length > 0 ? given : [SAMPLE];
for (const s of sessions) {
  if (!existsSync(resolve(root, s))) {
    say(`${s} does not exist. Pass session files after --: npm start -- path/to/session.jsonl`);
    process.exit(2);
  }
}

say('building (npm run build)…');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const build = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) {
  say('the build failed; see above.');
  process.exit(build.status ?? 1);
}

const electron = findElectron();
if (electron.path && hasDisplay()) {
  say(`opening ${sessions.join(', ')} in Electron (${electron.path})`);
  runForwarding(electron.path, ['.', ...sessions]);
} else {
  if (!electron.path) {
    say(`the Electron binary is not installed on this machine (${electron.reason}).`);
  } else {
    say('there is no display (DISPLAY / WAYLAND_DISPLAY unset), so Electron cannot open a window.');
  }
  say('Starting the web host instead: open the URL below in a browser (Chromium, Firefox…). Ctrl-C stops it.');
  runForwarding(process.execPath, [join(root, 'bin', 'palimpsest.js'), 'serve', ...sessions, '--port', process.env.PALIMPSEST_PORT ?? '0']);
}
