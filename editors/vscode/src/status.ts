// The status-bar item's text and tooltip from the server's state. Pure; unit-tested.

/** The parameters of the server's `crdls/indexStatus` notification. */
export interface IndexStatus {
  crds: number;
  files: number;
}

/** What the client knows of the server. */
export type ServerState =
  | { kind: 'starting' }
  | { kind: 'indexed'; status: IndexStatus }
  | { kind: 'stopped' }
  | { kind: 'missing'; message: string };

export interface StatusView {
  text: string;
  tooltip: string;
  /** Shown as a warning (a stopped or missing server). */
  warning: boolean;
}

function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** Reads a `crdls/indexStatus` payload, or undefined when it is not one. */
export function parseIndexStatus(params: unknown): IndexStatus | undefined {
  if (typeof params !== 'object' || params === null) {
    return undefined;
  }
  const { crds, files } = params as Record<string, unknown>;
  if (typeof crds !== 'number' || typeof files !== 'number' || crds < 0 || files < 0) {
    return undefined;
  }
  return { crds, files };
}

export function statusView(state: ServerState): StatusView {
  switch (state.kind) {
    case 'starting':
      return { text: '$(sync~spin) CRDs', tooltip: 'crdls: indexing the CRDs of the workspace…', warning: false };
    case 'indexed': {
      const { crds, files } = state.status;
      return {
        text: `$(symbol-class) ${plural(crds, 'CRD', 'CRDs')}`,
        tooltip:
          crds === 0
            ? 'crdls: no CRD found in the workspace or in crdls.crdPaths. Click for the server output.'
            : `crdls: ${plural(crds, 'CRD', 'CRDs')} indexed from ${plural(files, 'file', 'files')}. Click for the server output.`,
        warning: false,
      };
    }
    case 'stopped':
      return { text: '$(warning) crdls', tooltip: 'crdls: the server is not running. Click for its output.', warning: true };
    case 'missing':
      return { text: '$(warning) crdls', tooltip: state.message, warning: true };
  }
}
