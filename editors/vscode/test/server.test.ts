import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { test } from 'node:test';

import { expandSettingPath, Found, isFound, Machine, NotFound, resolveServer, searchPath } from '../src/server';

function machine(files: string[], envPath = '/usr/local/bin:/usr/bin', platform: NodeJS.Platform = 'linux'): Machine {
  const set = new Set(files.map((f) => path.normalize(f)));
  return { platform, envPath, home: '/home/ada', isExecutable: (f) => set.has(path.normalize(f)) };
}

const EXT = '/ext/crdls-0.1.0';

function found(result: Found | NotFound): Found {
  assert.ok(isFound(result), `expected a binary, got: ${(result as NotFound).message}`);
  return result;
}

function notFound(result: Found | NotFound): NotFound {
  assert.ok(!isFound(result), `expected no binary, got ${(result as Found).command}`);
  return result;
}

test('the setting comes first', () => {
  const m = machine(['/opt/crdls/bin/crdls', `${EXT}/server/crdls`, '/usr/bin/crdls']);
  assert.deepEqual(resolveServer('/opt/crdls/bin/crdls', EXT, '/w', m), { command: '/opt/crdls/bin/crdls', source: 'setting' });
});

test('then the bundled binary, then PATH', () => {
  assert.deepEqual(found(resolveServer('', EXT, '/w', machine([`${EXT}/server/crdls`, '/usr/bin/crdls']))), {
    command: `${EXT}/server/crdls`,
    source: 'bundled',
  });
  assert.deepEqual(found(resolveServer(undefined, EXT, '/w', machine(['/usr/bin/crdls']))), { command: '/usr/bin/crdls', source: 'path' });
  assert.equal(found(resolveServer('  ', EXT, '/w', machine(['/usr/local/bin/crdls', '/usr/bin/crdls']))).command, '/usr/local/bin/crdls');
});

test('a setting pointing at nothing is an error naming the path, not a silent fallback', () => {
  const result = notFound(resolveServer('~/bin/crdls', EXT, '/w', machine(['/usr/bin/crdls'])));
  assert.equal(result.fromSetting, true);
  assert.match(result.message, /crdls\.server\.path setting points to "\/home\/ada\/bin\/crdls"/);
});

test('a bare name in the setting is looked up on PATH', () => {
  assert.equal(found(resolveServer('crdls-nightly', EXT, '/w', machine(['/usr/bin/crdls-nightly']))).command, '/usr/bin/crdls-nightly');
  assert.match(notFound(resolveServer('crdls-nightly', EXT, '/w', machine([]))).message, /was not found on PATH/);
});

test('nothing anywhere gives an actionable message', () => {
  const result = notFound(resolveServer(undefined, EXT, '/w', machine([])));
  assert.equal(result.fromSetting, false);
  assert.match(result.message, /cargo install --path server\/crdls/);
  assert.match(result.message, /crdls\.server\.path/);
});

test('setting paths expand ~, ${workspaceFolder} and relative paths', () => {
  assert.equal(expandSettingPath('~/x/crdls', '/w', '/home/ada'), path.join('/home/ada', 'x/crdls'));
  assert.equal(expandSettingPath('${workspaceFolder}/target/release/crdls', '/w', '/h'), '/w/target/release/crdls');
  assert.equal(expandSettingPath('target/release/crdls', '/w', '/h'), path.join('/w', 'target/release/crdls'));
  assert.equal(expandSettingPath('crdls', '/w', '/h'), 'crdls');
  assert.equal(expandSettingPath('/abs/crdls', '/w', '/h'), '/abs/crdls');
});

test('PATH lookup skips empty entries and honours PATHEXT on Windows', () => {
  assert.equal(searchPath('crdls', machine(['/b/crdls'], ':/a::/b')), '/b/crdls');
  assert.equal(searchPath('crdls', { ...machine([]), envPath: undefined }), undefined);
  const win: Machine = {
    platform: 'win32',
    envPath: 'C:\\tools;C:\\bin',
    pathExt: '.COM;.EXE',
    home: 'C:\\Users\\ada',
    isExecutable: (f) => f === path.join('C:\\bin', 'crdls.exe'),
  };
  assert.equal(searchPath('crdls', win), path.join('C:\\bin', 'crdls.exe'));
});
