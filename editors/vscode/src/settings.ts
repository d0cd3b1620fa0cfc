// The settings crdls reads, as the server wants them: only what the user set, so that a project's
// crdls.toml is not overridden by VS Code's defaults. Pure: no `vscode` import, unit-tested.

/** The settings keys the server reads (the `crdls` section minus what only the client uses). */
export const SERVER_KEYS = ['crdPaths', 'cluster', 'redirectHosts', 'strict', 'failUnchecked', 'includeTestdata', 'wholeTestInputs', 'kubeVersion', 'oldObject', 'severity', 'inlayHints', 'fieldDocs'] as const;

export type ServerKey = (typeof SERVER_KEYS)[number];

/**
 * The keys a workspace's own settings (`.vscode/settings.json`, a folder's settings) may not set until
 * the user trusts the workspace: they make crdls run a program (a kubeconfig's exec plugin, git), read
 * a credential or touch the network. package.json declares them as `restrictedConfigurations` too;
 * here, in a workspace that is not trusted, only the user's own value counts.
 */
export const RESTRICTED_KEYS: readonly ServerKey[] = ['crdPaths', 'cluster', 'oldObject', 'redirectHosts', 'fieldDocs'];

/** A severity a diagnostic code can be overridden to. */
export const SEVERITIES = ['error', 'warning', 'info', 'hint', 'off'] as const;

/** What `WorkspaceConfiguration.inspect` tells of one key (the parts used here). */
export interface Inspected<T> {
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** The settings sent to the server, in its camelCase names. */
/** Which cluster's CRDs to read: the kubeconfig's current context unless one is named. */
export interface ClusterSetting {
  enabled?: boolean;
  context?: string;
  kubeconfig?: string;
}

export interface ServerSettings {
  crdPaths?: string[];
  cluster?: boolean | ClusterSetting;
  redirectHosts?: string[];
  strict?: boolean;
  failUnchecked?: boolean;
  includeTestdata?: boolean;
  wholeTestInputs?: boolean;
  kubeVersion?: string;
  oldObject?: string;
  severity?: Record<string, string>;
  inlayHints?: boolean;
  fieldDocs?: boolean | string;
}

/** A setting with a value the server would reject, and why. */
export interface SettingProblem {
  key: string;
  message: string;
}

/**
 * The value the user set for a key, the most specific scope winning; undefined when only the default
 * applies. With `userOnly`, the workspace's values are passed over: only the user's own counts.
 */
export function explicitValue<T>(inspected: Inspected<T> | undefined, userOnly = false): T | undefined {
  if (!inspected) {
    return undefined;
  }
  const scopes = userOnly ? [inspected.globalValue] : [inspected.workspaceFolderValue, inspected.workspaceValue, inspected.globalValue];
  for (const value of scopes) {
    if (value !== undefined && value !== null) {
      return value;
    }
  }
  return undefined;
}

/**
 * Builds the server's settings from what the user set, leaving out keys only defaulted (so crdls.toml
 * keeps them) and values of the wrong shape (reported as problems, so one bad value does not make the
 * server reject the others). In a workspace that is not `trusted`, the workspace's own values of the
 * restricted keys are left out too, and named in `withheld`.
 */
export function serverSettings(
  inspect: (key: ServerKey) => Inspected<unknown> | undefined,
  trusted = true,
): {
  settings: ServerSettings;
  problems: SettingProblem[];
  withheld: string[];
} {
  const settings: ServerSettings = {};
  const problems: SettingProblem[] = [];
  const withheld: string[] = [];
  const bad = (key: string, message: string) => problems.push({ key: `crdls.${key}`, message });
  const explicit = (key: ServerKey): unknown => {
    const inspected = inspect(key);
    if (trusted || !RESTRICTED_KEYS.includes(key)) {
      return explicitValue(inspected);
    }
    if (explicitValue(inspected) !== explicitValue(inspected, true)) {
      withheld.push(`crdls.${key}`);
    }
    return explicitValue(inspected, true);
  };

  const crdPaths = explicit('crdPaths');
  if (crdPaths !== undefined) {
    if (Array.isArray(crdPaths) && crdPaths.every((p) => typeof p === 'string')) {
      settings.crdPaths = crdPaths.map((p) => p.trim()).filter((p) => p.length > 0);
    } else {
      bad('crdPaths', 'must be a list of paths, globs or URLs');
    }
  }
  const redirectHosts = explicit('redirectHosts');
  if (redirectHosts !== undefined) {
    if (Array.isArray(redirectHosts) && redirectHosts.every((h) => typeof h === 'string')) {
      settings.redirectHosts = redirectHosts.map((h) => h.trim()).filter((h) => h.length > 0);
    } else {
      bad('redirectHosts', 'must be a list of host names');
    }
  }
  const cluster = explicit('cluster');
  if (cluster !== undefined) {
    if (typeof cluster === 'boolean') {
      settings.cluster = cluster;
    } else if (typeof cluster === 'object' && !Array.isArray(cluster)) {
      const kept: ClusterSetting = {};
      let ok = true;
      for (const [key, value] of Object.entries(cluster as Record<string, unknown>)) {
        if (key === 'enabled' && typeof value === 'boolean') {
          kept.enabled = value;
        } else if ((key === 'context' || key === 'kubeconfig') && typeof value === 'string') {
          if (value.trim() !== '') {
            kept[key] = value.trim();
          }
        } else {
          ok = false;
          bad(`cluster.${key}`, 'must be enabled (true or false), context or kubeconfig (strings)');
        }
      }
      if (ok) {
        settings.cluster = kept;
      }
    } else {
      bad('cluster', 'must be true, false, or an object with context and kubeconfig');
    }
  }
  for (const key of ['strict', 'failUnchecked', 'includeTestdata', 'wholeTestInputs', 'inlayHints'] as const) {
    const value = explicit(key);
    if (value !== undefined) {
      if (typeof value === 'boolean') {
        settings[key] = value;
      } else {
        bad(key, 'must be true or false');
      }
    }
  }
  const kubeVersion = explicit('kubeVersion');
  if (kubeVersion !== undefined) {
    if (typeof kubeVersion === 'string' && /^v?1\.\d+(\.\d+)?$|^$/.test(kubeVersion.trim())) {
      settings.kubeVersion = kubeVersion.trim();
    } else {
      bad('kubeVersion', 'must be a Kubernetes version such as 1.31, or empty for the newest');
    }
  }
  const oldObject = explicit('oldObject');
  if (oldObject !== undefined) {
    if (typeof oldObject === 'string') {
      settings.oldObject = oldObject.trim() === '' ? 'off' : oldObject.trim();
    } else {
      bad('oldObject', 'must be a git revision (such as HEAD) or "off"');
    }
  }
  const fieldDocs = explicit('fieldDocs');
  if (fieldDocs !== undefined) {
    if (typeof fieldDocs === 'boolean') {
      settings.fieldDocs = fieldDocs;
    } else if (typeof fieldDocs === 'string' && /^(https?:\/\/\S+|off|)$/i.test(fieldDocs.trim())) {
      settings.fieldDocs = fieldDocs.trim() === '' ? false : fieldDocs.trim();
    } else {
      bad('fieldDocs', 'must be true, false, or the http(s) URL of a mirror of the Kubernetes repository');
    }
  }
  const severity = explicit('severity');
  if (severity !== undefined) {
    if (typeof severity === 'object' && !Array.isArray(severity)) {
      const kept: Record<string, string> = {};
      for (const [code, level] of Object.entries(severity as Record<string, unknown>)) {
        const normalized = typeof level === 'string' ? level.trim().toLowerCase() : level;
        if (typeof normalized === 'string' && (SEVERITIES as readonly string[]).includes(normalized)) {
          kept[code] = normalized;
        } else {
          bad(`severity.${code}`, `must be one of ${SEVERITIES.join(', ')} (got ${JSON.stringify(level)})`);
        }
      }
      settings.severity = kept;
    } else {
      bad('severity', 'must be an object mapping diagnostic codes to error, warning, info, hint or off');
    }
  }
  return { settings, problems, withheld };
}

/** Whether a configuration change touches a setting that needs the server restarted. */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return affects('crdls.server.path');
}

/** Whether a configuration change touches a setting the server reads. */
export function affectsServer(affects: (section: string) => boolean): boolean {
  return SERVER_KEYS.some((key) => affects(`crdls.${key}`));
}
