// The errknow-ls client: starts the server, syncs Python files, notebooks, logs and output
// channels, forwards terminal output, and adds the explain / records / restart commands.
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  RevealOutputChannelOn,
  type ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import {
  EXPLANATION_SCHEME,
  explainClipboard,
  explainSelection,
  explanationProvider,
  showRecords,
} from "./commands";
import { findServer, NOT_FOUND, type ServerCommand } from "./server";
import { watchTerminals } from "./terminal";

const NAME = "errknow-ls";
const LOG_PATTERN = "**/{*.log,*.out,*.err,nohup.out,slurm-*.out}";

let client: LanguageClient | undefined;
let server: ServerCommand | undefined;
let output: vscode.LogOutputChannel | undefined;

function settings(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("errknow");
}

function lookupServer(): ServerCommand | undefined {
  return findServer({
    serverCommand: settings().get<string[]>("serverCommand", []),
    interpreter: settings().get<string | null>("interpreter", null),
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
    pathVariable: process.env.PATH ?? "",
    platform: process.platform,
  });
}

/** Settings the server reads (errknow_ls/lsp/settings.py); extension-only keys stay here. */
function serverSettings(): Record<string, unknown> {
  const keys = [
    "select", "ignore", "severity", "records", "locale", "exclude",
    "logLevel", "interpreter", "logGlobs", "scanWorkspace",
  ];
  return Object.fromEntries(keys.map((key) => [key, settings().get(key)]));
}

// The extension's own output channel is a document too: never send it back to the server.
const middleware: Middleware = {
  didOpen: (document, next) => (isOwnChannel(document) ? Promise.resolve() : next(document)),
  didChange: (event, next) => (isOwnChannel(event.document) ? Promise.resolve() : next(event)),
  didClose: (document, next) => (isOwnChannel(document) ? Promise.resolve() : next(document)),
};

function isOwnChannel(document: vscode.TextDocument): boolean {
  return document.uri.scheme === "output" && document.uri.path.includes(NAME);
}

function clientOptions(): LanguageClientOptions {
  return {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      { notebook: "jupyter-notebook", language: "python" },
      { language: "log" },
      { scheme: "file", pattern: LOG_PATTERN },
      { scheme: "output" },
    ],
    initializationOptions: serverSettings(),
    middleware,
    ...(output ? { outputChannel: output } : {}),
    revealOutputChannelOn: RevealOutputChannelOn.Never,
  };
}

async function offerFix(): Promise<void> {
  const choice = await vscode.window.showErrorMessage(NOT_FOUND, "Open Settings", "Copy install command");
  if (choice === "Open Settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "errknow.serverCommand");
  } else if (choice === "Copy install command") {
    await vscode.env.clipboard.writeText(".venv/bin/pip install errknow-ls");
  }
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  server = lookupServer();
  if (!server) {
    output?.error(NOT_FOUND);
    // Not awaited: activation must not wait for the user to answer.
    void offerFix();
    return;
  }
  output?.info(`starting ${server.command} ${server.args.join(" ")} (from ${server.origin})`);
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const executable = { command: server.command, args: server.args, transport: TransportKind.stdio, options: cwd ? { cwd } : {} };
  const serverOptions: ServerOptions = { run: executable, debug: executable };
  client = new LanguageClient("errknow", NAME, serverOptions, clientOptions());
  context.subscriptions.push(client);
  try {
    await client.start();
  } catch (error) {
    void vscode.window.showErrorMessage(`errknow-ls failed to start (${server.command}): ${String(error)}`);
  }
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.dispose();
  }
  await start(context);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel(NAME, { log: true });
  output = log;
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand("errknow.restartServer", () => restart(context)),
    vscode.commands.registerCommand("errknow.explainSelection", () => explainSelection(client)),
    vscode.commands.registerCommand("errknow.explainClipboard", () => explainClipboard(client)),
    vscode.commands.registerCommand("errknow.showRecords", () => showRecords(client)),
    watchTerminals(() => client, log),
    vscode.workspace.registerTextDocumentContentProvider(EXPLANATION_SCHEME, explanationProvider),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (["errknow.serverCommand", "errknow.interpreter"].some((key) => event.affectsConfiguration(key))) {
        void restart(context);
      } else if (event.affectsConfiguration("errknow") && client?.isRunning()) {
        // The server re-reads its settings (and pulls workspace/configuration) on this notification.
        void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { errknow: serverSettings() } });
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.dispose();
  client = undefined;
}
