// The VS Code side of crdls: starts the server for YAML documents, hands it the user's settings and
// the workspace's trust, shows the number of indexed CRDs in the status bar, and adds three commands.
// In a workspace the user has not trusted (restricted mode), the server still checks files, but the
// workspace's own settings cannot choose the binary, the cluster, URLs or git (package.json's
// `restrictedConfigurations`), and crdls.toml's are withheld by the server; granting trust restarts it.

import * as fs from 'fs';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  ClientCapabilities,
  LanguageClient,
  LanguageClientOptions,
  Location as LspLocation,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';

import { isFound, resolveServer } from './server';
import { affectsServer, needsRestart, serverSettings, ServerKey } from './settings';
import { parseIndexStatus, ServerState, statusView } from './status';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let status: vscode.StatusBarItem;
let missingNotified = false;

/** Tells the server this client shows `crdls/indexStatus` (the server only sends it when asked). */
class IndexStatusFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental ?? {}), crdlsIndexStatus: true };
  }
  initialize(): void {}
  getState() {
    return { kind: 'static' as const };
  }
  clear(): void {}
}

function setState(state: ServerState): void {
  const view = statusView(state);
  status.text = view.text;
  status.tooltip = view.tooltip;
  status.backgroundColor = view.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  status.show();
}

/** The settings the server reads, as the user set them (defaults left to the server and crdls.toml). */
function currentSettings(): object {
  const config = vscode.workspace.getConfiguration('crdls');
  const { settings, problems, withheld } = serverSettings((key: ServerKey) => config.inspect(key), vscode.workspace.isTrusted);
  for (const problem of problems) {
    output.appendLine(`[settings] ${problem.key} ${problem.message}; ignored`);
  }
  for (const key of withheld) {
    output.appendLine(`[settings] ${key} set by the workspace is not used until you trust the workspace`);
  }
  return settings;
}

/** `crdls.server.path` as the user set it: in a workspace that is not trusted, only the user's own value. */
function serverPathSetting(): string | undefined {
  const config = vscode.workspace.getConfiguration('crdls');
  if (vscode.workspace.isTrusted) {
    return config.get<string>('server.path');
  }
  return config.inspect<string>('server.path')?.globalValue;
}

function workspaceFolderPath(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function isExecutable(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const setting = serverPathSetting();
  const found = resolveServer(setting, context.extensionPath, workspaceFolderPath(), {
    platform: process.platform,
    envPath: process.env.PATH ?? process.env.Path,
    pathExt: process.env.PATHEXT,
    home: os.homedir(),
    isExecutable,
  });
  if (!isFound(found)) {
    output.appendLine(found.message);
    setState({ kind: 'missing', message: found.message });
    if (!missingNotified) {
      missingNotified = true;
      const choice = await vscode.window.showErrorMessage(found.message, 'Open Settings', 'Retry');
      if (choice === 'Open Settings') {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'crdls.server.path');
      } else if (choice === 'Retry') {
        missingNotified = false;
        await start(context);
      }
    }
    return;
  }
  output.appendLine(`[client] starting ${found.command} (from ${found.source === 'setting' ? 'crdls.server.path' : found.source === 'bundled' ? 'the extension' : 'PATH'})`);

  const serverOptions: ServerOptions = {
    run: { command: found.command, transport: TransportKind.stdio },
    debug: { command: found.command, transport: TransportKind.stdio, options: { env: { ...process.env, RUST_BACKTRACE: '1' } } },
  };
  const clientOptions: LanguageClientOptions = {
    // YAML only, from files and unsaved buffers: the server says nothing about YAML no CRD serves, so
    // other YAML tools (the Red Hat YAML extension) keep working alongside.
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'untitled', language: 'yaml' },
    ],
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // The trust travels only here: the server never takes it from settings a workspace can hold.
    initializationOptions: { ...currentSettings(), trustedWorkspace: vscode.workspace.isTrusted },
    middleware: {
      workspace: {
        // Answer the server's workspace/configuration with what the user set, not VS Code's defaults,
        // so crdls.toml at the workspace root keeps the values the user did not set here.
        configuration: (params) => params.items.map((item) => (item.section === 'crdls' ? currentSettings() : null)),
      },
    },
  };

  const next = new LanguageClient('crdls', 'crdls', serverOptions, clientOptions);
  next.registerFeature(new IndexStatusFeature());
  next.onDidChangeState((event) => {
    if (event.newState === State.Stopped) {
      setState({ kind: 'stopped' });
    } else if (event.newState === State.Starting) {
      setState({ kind: 'starting' });
    }
  });
  client = next;
  setState({ kind: 'starting' });
  try {
    await next.start();
  } catch (e) {
    output.appendLine(`[client] the server failed to start: ${e instanceof Error ? e.message : String(e)}`);
    setState({ kind: 'stopped' });
    void vscode.window.showErrorMessage(`crdls: the server (${found.command}) failed to start. See the crdls output for details.`, 'Show Output').then((choice) => {
      if (choice) {
        output.show(true);
      }
    });
    return;
  }
  next.onNotification('crdls/indexStatus', (params: unknown) => {
    const parsed = parseIndexStatus(params);
    if (parsed) {
      setState({ kind: 'indexed', status: parsed });
    }
  });
}

async function stop(): Promise<void> {
  const current = client;
  client = undefined;
  if (current) {
    try {
      await current.stop(5000);
    } catch (e) {
      output.appendLine(`[client] stopping the server: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  await stop();
  missingNotified = false;
  await start(context);
}

/** Opens the CRD that serves the active document's apiVersion/kind (the document under the cursor). */
async function showCrdForDocument(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'yaml') {
    void vscode.window.showInformationMessage('crdls: open a YAML custom resource first.');
    return;
  }
  if (!client || !client.isRunning()) {
    void vscode.window.showWarningMessage('crdls: the server is not running.');
    return;
  }
  const params = {
    textDocument: client.code2ProtocolConverter.asTextDocumentIdentifier(editor.document),
    position: client.code2ProtocolConverter.asPosition(editor.selection.active),
  };
  const location = await client.sendRequest<LspLocation | null>('crdls/crdForDocument', params);
  if (!location) {
    void vscode.window.showInformationMessage(
      'crdls: no CRD in the workspace (or in crdls.crdPaths) serves the apiVersion and kind of this document.',
    );
    return;
  }
  const target = client.protocol2CodeConverter.asLocation(location);
  const document = await vscode.workspace.openTextDocument(target.uri);
  await vscode.window.showTextDocument(document, { selection: target.range, preview: false });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('crdls');
  status = vscode.window.createStatusBarItem('crdls.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'crdls';
  status.command = 'crdls.showOutput';
  context.subscriptions.push(output, status);

  context.subscriptions.push(
    vscode.commands.registerCommand('crdls.restartServer', () => restart(context)),
    vscode.commands.registerCommand('crdls.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('crdls.showCrdForDocument', showCrdForDocument),
    // Trust is granted while the window stays open (taking it back reloads the window): the server
    // starts again with it, so crdls.toml's cluster, URLs and git come into use.
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart(context)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (needsRestart((s) => event.affectsConfiguration(s))) {
        await restart(context);
      } else if (affectsServer((s) => event.affectsConfiguration(s)) && client?.isRunning()) {
        // The server re-reads the section with workspace/configuration (answered by the middleware).
        await client.sendNotification('workspace/didChangeConfiguration', { settings: null });
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await stop();
}
