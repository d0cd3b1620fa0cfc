// Finding the crdls binary: the `crdls.server.path` setting, then the binary bundled in the extension,
// then `PATH`. Pure apart from the file-system probe passed in, and unit-tested.

import * as path from 'path';

/** Where a binary was found, and by which rule. */
export interface Found {
  command: string;
  source: 'setting' | 'bundled' | 'path';
}

/** Why no binary was found, in words a user can act on. */
export interface NotFound {
  message: string;
  /** The setting pointed at a missing file (rather than nothing being found at all). */
  fromSetting: boolean;
}

/** What the resolution needs to know of the machine. */
export interface Machine {
  platform: NodeJS.Platform;
  /** `PATH` (or `Path` on Windows). */
  envPath: string | undefined;
  /** `PATHEXT` on Windows. */
  pathExt?: string;
  home: string | undefined;
  /** Whether an executable file exists at this path. */
  isExecutable: (file: string) => boolean;
}

/** The binary's file name on a platform. */
export function binaryName(platform: NodeJS.Platform): string {
  return platform === 'win32' ? 'crdls.exe' : 'crdls';
}

/** Expands `~` and `${workspaceFolder}`, and resolves a relative path against the workspace folder. */
export function expandSettingPath(setting: string, workspaceFolder: string | undefined, home: string | undefined): string {
  let p = setting.trim();
  if (workspaceFolder !== undefined) {
    p = p.split('${workspaceFolder}').join(workspaceFolder);
  }
  if (home !== undefined && (p === '~' || p.startsWith('~/') || p.startsWith('~\\'))) {
    p = path.join(home, p.slice(1));
  }
  if (!path.isAbsolute(p) && workspaceFolder !== undefined && (p.includes('/') || p.includes('\\'))) {
    p = path.join(workspaceFolder, p);
  }
  return p;
}

/** Looks a command up on `PATH` the way a shell would. */
export function searchPath(name: string, machine: Machine): string | undefined {
  if (!machine.envPath) {
    return undefined;
  }
  const sep = machine.platform === 'win32' ? ';' : ':';
  const exts =
    machine.platform === 'win32' && path.extname(name) === ''
      ? (machine.pathExt ?? '.EXE;.CMD;.BAT').split(';').filter((e) => e !== '')
      : [''];
  for (const dir of machine.envPath.split(sep)) {
    if (dir === '') {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext.toLowerCase());
      if (machine.isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/**
 * Finds the server: the setting when set (a bare name is looked up on PATH; a missing file is an
 * error, not a fallback, so a typo is not hidden), else `server/crdls` inside the extension, else PATH.
 */
export function resolveServer(
  setting: string | undefined,
  extensionPath: string,
  workspaceFolder: string | undefined,
  machine: Machine,
): Found | NotFound {
  if (setting !== undefined && setting.trim() !== '') {
    const expanded = expandSettingPath(setting, workspaceFolder, machine.home);
    const bare = !expanded.includes('/') && !expanded.includes('\\');
    const command = bare ? searchPath(expanded, machine) : machine.isExecutable(expanded) ? expanded : undefined;
    if (command !== undefined) {
      return { command, source: 'setting' };
    }
    return {
      message: bare
        ? `crdls: "${setting}" (the crdls.server.path setting) was not found on PATH. Set crdls.server.path to the full path of the crdls binary.`
        : `crdls: the crdls.server.path setting points to "${expanded}", which is not an executable file. Fix the setting, or clear it to use the bundled server or crdls from PATH.`,
      fromSetting: true,
    };
  }
  const bundled = path.join(extensionPath, 'server', binaryName(machine.platform));
  if (machine.isExecutable(bundled)) {
    return { command: bundled, source: 'bundled' };
  }
  const onPath = searchPath(binaryName(machine.platform).replace(/\.exe$/, ''), machine);
  if (onPath !== undefined) {
    return { command: onPath, source: 'path' };
  }
  return {
    message:
      'crdls: the crdls language server was not found. This build of the extension bundles no server for this platform, and crdls is not on PATH. Install it with "cargo install --path server/crdls" from a crdls checkout (or download a release), then set crdls.server.path or add it to PATH.',
    fromSetting: false,
  };
}

export function isFound(result: Found | NotFound): result is Found {
  return (result as Found).command !== undefined;
}
