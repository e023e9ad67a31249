// `npm run deps`: checks the imports of src against the layer rules of .dependency-cruiser.mjs.
// dependency-cruiser's own command refuses to start on Node 20 (its engines field asks for 22 or
// later), while Palimpsest supports Node 20.18; its library runs there, so this calls it directly.
// Run from the repository root (npm does). Exit 0: no violation; 1: some, each told on stderr.
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const options = await extractDepcruiseOptions(fileURLToPath(new URL('../.dependency-cruiser.mjs', import.meta.url)));
const tsConfig = extractTSConfig(options.tsConfig?.fileName ?? 'tsconfig.json');
const result = await cruise(['src'], { ...options, outputType: 'err-long' }, {}, { tsConfig });
process.stderr.write(result.output);
process.exitCode = result.exitCode === 0 ? 0 : 1;
