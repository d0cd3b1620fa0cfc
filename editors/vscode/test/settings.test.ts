import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { affectsServer, explicitValue, Inspected, needsRestart, ServerKey, serverSettings } from '../src/settings';

function inspector(values: Partial<Record<ServerKey, Inspected<unknown>>>) {
  return (key: ServerKey) => values[key];
}

test('only values the user set are sent, so crdls.toml keeps the rest', () => {
  const { settings, problems } = serverSettings(inspector({}));
  assert.deepEqual(settings, {});
  assert.deepEqual(problems, []);
});

test('the most specific scope wins', () => {
  assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 }), 3);
  assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2 }), 2);
  assert.equal(explicitValue({ globalValue: false }), false);
  assert.equal(explicitValue({}), undefined);
  assert.equal(explicitValue(undefined), undefined);
});

test('every server setting is passed in its camelCase name', () => {
  const { settings, problems } = serverSettings(
    inspector({
      crdPaths: { workspaceValue: ['crds/', ' charts/*/crds/*.yaml ', ''] },
      strict: { globalValue: true },
      failUnchecked: { workspaceValue: true },
      includeTestdata: { workspaceValue: true },
      wholeTestInputs: { workspaceValue: true },
      kubeVersion: { workspaceValue: ' 1.31 ' },
      oldObject: { workspaceValue: 'origin/main' },
      severity: { globalValue: { 'schema/unknown-field': 'off', 'schema/pattern': 'Warning' } },
      inlayHints: { workspaceFolderValue: false },
    }),
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    crdPaths: ['crds/', 'charts/*/crds/*.yaml'],
    strict: true,
    failUnchecked: true,
    includeTestdata: true,
    wholeTestInputs: true,
    kubeVersion: '1.31',
    oldObject: 'origin/main',
    severity: { 'schema/unknown-field': 'off', 'schema/pattern': 'warning' },
    inlayHints: false,
  });
});

test('the cluster is a switch or an object naming the context and kubeconfig', () => {
  assert.deepEqual(serverSettings(inspector({ cluster: { globalValue: true } })).settings, { cluster: true });
  assert.deepEqual(
    serverSettings(inspector({ cluster: { workspaceValue: { context: ' kind-dev ', kubeconfig: '', enabled: true } } })).settings,
    { cluster: { context: 'kind-dev', enabled: true } },
  );
  const { settings, problems } = serverSettings(inspector({ cluster: { globalValue: { contxt: 'a' } } }));
  assert.deepEqual(settings, {});
  assert.deepEqual(problems.map((p) => p.key), ['crdls.cluster.contxt']);
  assert.deepEqual(serverSettings(inspector({ cluster: { globalValue: 'yes' } })).problems.map((p) => p.key), ['crdls.cluster']);
});

test('an empty old-object source turns transition checks off', () => {
  assert.deepEqual(serverSettings(inspector({ oldObject: { globalValue: '  ' } })).settings, { oldObject: 'off' });
});

test('values of the wrong shape are reported and left out, the others kept', () => {
  const { settings, problems } = serverSettings(
    inspector({
      strict: { globalValue: 'yes' },
      kubeVersion: { globalValue: 'latest' },
      crdPaths: { globalValue: 'crds/' },
      severity: { globalValue: { 'schema/pattern': 'loud', 'schema/enum': 'hint' } },
      inlayHints: { globalValue: true },
    }),
  );
  assert.deepEqual(settings, { severity: { 'schema/enum': 'hint' }, inlayHints: true });
  assert.deepEqual(
    problems.map((p) => p.key),
    ['crdls.crdPaths', 'crdls.strict', 'crdls.kubeVersion', 'crdls.severity.schema/pattern'],
  );
  assert.match(problems[3].message, /error, warning, info, hint, off \(got "loud"\)/);
  assert.match(problems[2].message, /Kubernetes version/);
});

test('a severity that is not an object is a problem', () => {
  const { settings, problems } = serverSettings(inspector({ severity: { globalValue: ['off'] } }));
  assert.deepEqual(settings, {});
  assert.equal(problems.length, 1);
});

test('the server path needs a restart; server settings a configuration push', () => {
  const touched = (sections: string[]) => (s: string) => sections.includes(s);
  assert.equal(needsRestart(touched(['crdls.server.path'])), true);
  assert.equal(needsRestart(touched(['crdls.strict'])), false);
  assert.equal(affectsServer(touched(['crdls.strict'])), true);
  assert.equal(affectsServer(touched(['crdls.severity'])), true);
  assert.equal(affectsServer(touched(['crdls.trace.server'])), false);
  assert.equal(affectsServer(touched(['yaml.schemas'])), false);
});

test('in a workspace that is not trusted, only the user may set what runs programs or touches the network', () => {
  const values = inspector({
    crdPaths: { workspaceValue: ['https://example.com/crds.yaml'], globalValue: ['crds/'] },
    cluster: { workspaceFolderValue: { kubeconfig: 'kube/config' } },
    oldObject: { workspaceValue: '--output=x' },
    redirectHosts: { workspaceValue: ['*'] },
    fieldDocs: { workspaceValue: 'https://mirror.example' },
    strict: { workspaceValue: true },
  });
  const restricted = serverSettings(values, false);
  assert.deepEqual(restricted.settings, { crdPaths: ['crds/'], strict: true });
  assert.deepEqual(restricted.withheld, ['crdls.crdPaths', 'crdls.redirectHosts', 'crdls.cluster', 'crdls.oldObject', 'crdls.fieldDocs']);
  const trusted = serverSettings(values, true);
  assert.deepEqual(trusted.settings, {
    crdPaths: ['https://example.com/crds.yaml'],
    cluster: { kubeconfig: 'kube/config' },
    redirectHosts: ['*'],
    oldObject: '--output=x',
    fieldDocs: 'https://mirror.example',
    strict: true,
  });
  assert.deepEqual(trusted.withheld, []);
  // The user's own values of the restricted keys count either way.
  assert.deepEqual(serverSettings(inspector({ fieldDocs: { globalValue: true } }), false).settings, { fieldDocs: true });
  assert.deepEqual(serverSettings(inspector({ fieldDocs: { globalValue: 'file:///etc' } })).problems.map((p) => p.key), ['crdls.fieldDocs']);
  assert.deepEqual(serverSettings(inspector({ cluster: { globalValue: true } }), false), {
    settings: { cluster: true },
    problems: [],
    withheld: [],
  });
});
