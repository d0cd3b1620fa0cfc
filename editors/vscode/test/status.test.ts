import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { parseIndexStatus, statusView } from '../src/status';

test('the count of indexed CRDs is shown, with the files in the tooltip', () => {
  const view = statusView({ kind: 'indexed', status: { crds: 1234, files: 56 } });
  assert.equal(view.text, '$(symbol-class) 1,234 CRDs');
  assert.equal(view.tooltip, 'crdls: 1,234 CRDs indexed from 56 files. Click for the server output.');
  assert.equal(view.warning, false);
  assert.equal(statusView({ kind: 'indexed', status: { crds: 1, files: 1 } }).text, '$(symbol-class) 1 CRD');
  assert.match(statusView({ kind: 'indexed', status: { crds: 0, files: 0 } }).tooltip, /no CRD found/);
});

test('starting, stopped and missing servers', () => {
  assert.match(statusView({ kind: 'starting' }).text, /sync~spin/);
  assert.equal(statusView({ kind: 'stopped' }).warning, true);
  const missing = statusView({ kind: 'missing', message: 'crdls: not found' });
  assert.equal(missing.tooltip, 'crdls: not found');
  assert.equal(missing.warning, true);
});

test('index status payloads are validated', () => {
  assert.deepEqual(parseIndexStatus({ crds: 3, files: 2 }), { crds: 3, files: 2 });
  assert.equal(parseIndexStatus({ crds: '3', files: 2 }), undefined);
  assert.equal(parseIndexStatus({ crds: -1, files: 2 }), undefined);
  assert.equal(parseIndexStatus(null), undefined);
  assert.equal(parseIndexStatus([]), undefined);
});
