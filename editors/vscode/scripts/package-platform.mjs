// Packages the extension for one platform (vsce's --target): the crdls binary built for that platform
// goes into server/ (and nothing else there), then `vsce package --target TARGET` writes
// dist/crdls-TARGET.vsix, which the Marketplace and Open VSX serve to that platform only.
//   node scripts/package-platform.mjs TARGET [BINARY]
// BINARY defaults to $CRDLS_BIN, else the release build for TARGET's Rust triple
// (../../target/TRIPLE/release/crdls, or under $CARGO_TARGET_DIR), else, when TARGET is this machine's
// platform, the plain release build (../../target/release/crdls).
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, openSync, readSync, closeSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// vsce's targets, the Rust triple a release workflow builds for each, and the binary's format:
// [executable format, ELF e_machine or Mach-O cputype, both as the file's header states them].
const TARGETS = {
  'linux-x64': { triple: 'x86_64-unknown-linux-gnu', format: 'elf', machine: 0x3e },
  'linux-arm64': { triple: 'aarch64-unknown-linux-gnu', format: 'elf', machine: 0xb7 },
  'linux-armhf': { triple: 'armv7-unknown-linux-gnueabihf', format: 'elf', machine: 0x28 },
  'alpine-x64': { triple: 'x86_64-unknown-linux-musl', format: 'elf', machine: 0x3e },
  'alpine-arm64': { triple: 'aarch64-unknown-linux-musl', format: 'elf', machine: 0xb7 },
  'darwin-x64': { triple: 'x86_64-apple-darwin', format: 'macho', machine: 0x01000007 },
  'darwin-arm64': { triple: 'aarch64-apple-darwin', format: 'macho', machine: 0x0100000c },
  'win32-x64': { triple: 'x86_64-pc-windows-msvc', format: 'pe', machine: 0x8664 },
  'win32-arm64': { triple: 'aarch64-pc-windows-msvc', format: 'pe', machine: 0xaa64 },
};

const here = dirname(fileURLToPath(import.meta.url));
const extension = join(here, '..');
const target = process.argv[2];
const spec = TARGETS[target];
if (!spec) {
  console.error(`package-platform: give one of ${Object.keys(TARGETS).join(', ')} (got ${target ?? 'nothing'})`);
  process.exit(2);
}
const exe = spec.format === 'pe' ? 'crdls.exe' : 'crdls';
const targetDir = process.env.CARGO_TARGET_DIR ?? join(extension, '..', '..', 'target');
const hostTarget = `${process.platform}-${process.arch}`;
const given = process.argv[3] ?? process.env.CRDLS_BIN;
const candidates = given
  ? [given]
  : [join(targetDir, spec.triple, 'release', exe), hostTarget === target ? join(targetDir, 'release', exe) : undefined].filter(Boolean);
const source = candidates.map((p) => resolve(p)).find((p) => existsSync(p));
if (!source) {
  console.error(`package-platform: no crdls binary for ${target}; looked for ${candidates.join(', ')}`);
  process.exit(1);
}

// A binary of another platform in the package would be served to users of this one: check its header.
function machineOf(path) {
  const header = Buffer.alloc(64);
  const fd = openSync(path, 'r');
  readSync(fd, header, 0, 64, 0);
  closeSync(fd);
  if (header.readUInt32BE(0) === 0x7f454c46) return { format: 'elf', machine: header.readUInt16LE(18) };
  if (header.readUInt32LE(0) === 0xfeedfacf) return { format: 'macho', machine: header.readUInt32LE(4) };
  if (header.toString('latin1', 0, 2) === 'MZ') {
    const pe = Buffer.alloc(6);
    const fd2 = openSync(path, 'r');
    readSync(fd2, pe, 0, 6, header.readUInt32LE(0x3c));
    closeSync(fd2);
    return { format: 'pe', machine: pe.readUInt16LE(4) };
  }
  return { format: 'unknown', machine: 0 };
}
const found = machineOf(source);
if (found.format !== spec.format || found.machine !== spec.machine) {
  const hex = (n) => `0x${n.toString(16)}`;
  console.error(
    `package-platform: ${source} is ${found.format} ${hex(found.machine)}, not ${spec.format} ${hex(spec.machine)} as ${target} needs`,
  );
  process.exit(1);
}

// Only this platform's binary: .vscodeignore lets both server/crdls and server/crdls.exe in.
const server = join(extension, 'server');
rmSync(server, { recursive: true, force: true });
mkdirSync(server, { recursive: true });
const dest = join(server, exe);
copyFileSync(source, dest);
chmodSync(dest, 0o755);
// Debug line tables are a large part of the release binary; strip handles this machine's format only.
const stripped = spec.format === 'elf' && process.platform === 'linux' && spawnSync('strip', ['--strip-debug', dest]).status === 0;
const mb = (statSync(dest).size / 1048576).toFixed(1);
console.log(`package-platform: ${source} -> server/${exe} (${mb} MB${stripped ? ', stripped' : ''})`);

const out = join('dist', `crdls-${target}.vsix`);
const vsce = join(extension, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
const args = ['package', '--target', target, '--no-dependencies', '--skip-license', '--allow-missing-repository'];
args.push('--no-rewrite-relative-links', '--out', out);
const run = spawnSync(vsce, args, { cwd: extension, stdio: 'inherit' });
if (run.status !== 0) {
  console.error(`package-platform: vsce ${args.join(' ')} failed`);
  process.exit(run.status ?? 1);
}
console.log(`package-platform: ${out}`);
