// `npm run deps`: checks the imports of src against the layer rules of .dependency-cruiser.mjs.
// dependency-cruiser's own command refuses to start on Node 20 (its engines field asks for 22 or
// later), while Palimpsest supports Node 20.18; its library runs there, so this calls it directly.
// Exit 0: no violation; 1: some, each told on stderr.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Cruises `root`/src with the repository's rules (`root`/tsconfig.json for resolution). Returns
 * the violations as text and whether there were any. `root` other than the repository: tests.
 */
export async function checkLayers(root = ROOT) {
  const options = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.mjs'));
  const tsConfigFile = join(root, options.tsConfig?.fileName ?? 'tsconfig.json');
  const result = await cruise(
    ['src'],
    { ...options, baseDir: root, tsConfig: { fileName: tsConfigFile }, outputType: 'err-long' },
    {},
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  return { ok: result.exitCode === 0, output: String(result.output) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { ok, output } = await checkLayers();
  process.stderr.write(output);
  process.exitCode = ok ? 0 : 1;
}
