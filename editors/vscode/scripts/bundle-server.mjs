// Copies a built crdls binary into server/ so that `npm run package` bundles it in the .vsix, and
// strips its debug information when `strip` is available (64 MB -> about a quarter).
//   node scripts/bundle-server.mjs [BINARY]
// BINARY defaults to $CRDLS_BIN, else the release build of this repository
// (../../target/release/crdls, or under $CARGO_TARGET_DIR).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const exe = process.platform === 'win32' ? 'crdls.exe' : 'crdls';
const targetDir = process.env.CARGO_TARGET_DIR ?? join(here, '..', '..', '..', 'target');
const source = resolve(process.argv[2] ?? process.env.CRDLS_BIN ?? join(targetDir, 'release', exe));
if (!existsSync(source)) {
  console.error(`bundle-server: ${source} does not exist; build it with "cargo build --release" first`);
  process.exit(1);
}
const dest = join(here, '..', 'server', exe);
mkdirSync(dirname(dest), { recursive: true });
copyFileSync(source, dest);
chmodSync(dest, 0o755);
const stripped = process.platform !== 'win32' && spawnSync('strip', ['--strip-debug', dest]).status === 0;
const mb = (statSync(dest).size / 1048576).toFixed(1);
console.log(`bundle-server: ${source} -> server/${exe} (${mb} MB${stripped ? ', stripped' : ''})`);
