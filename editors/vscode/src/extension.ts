// The errknow-ls client: starts the server, syncs Python files, notebooks, logs and output
// channels, forwards terminal output, and adds the explain / records / restart commands.
import * as path from "node:path";
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
  clearRunErrors,
  EXPLANATION_SCHEME,
  whyNotRunning,
  explainClipboard,
  explainSelection,
  explanationProvider,
  showRecords,
} from "./commands";
import { onInterpreterChange, selectedInterpreter } from "./python";
import {
  type Action,
  findServer,
  type ImportStrategy,
  type Interpreter,
  isProblem,
  type Problem,
  readBundle,
  RESTRICTED,
  type ServerCommand,
} from "./server";
import { watchTerminals } from "./terminal";

const NAME = "errknow-ls";
const LOG_PATTERN = "**/{*.log,*.out,*.err,nohup.out,slurm-*.out}";

let client: LanguageClient | undefined;
let server: ServerCommand | undefined;
let output: vscode.LogOutputChannel | undefined;
/** The interpreter the running server was chosen with (the project's). */
let interpreter: Interpreter | undefined;
/** Watching for errknow-ls to be installed, while none is found. */
const installWatchers: vscode.Disposable[] = [];

function settings(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("errknow");
}

async function lookupServer(context: vscode.ExtensionContext): Promise<[ServerCommand | Problem, Interpreter | undefined]> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const pathVariable = process.env.PATH ?? "";
  const interpreter = await selectedInterpreter(settings().get<string>("interpreter", "") || null, folder, pathVariable);
  const found = findServer({
    serverCommand: settings().get<string[]>("serverCommand", []),
    importStrategy: settings().get<ImportStrategy>("importStrategy", "useBundled"),
    interpreter,
    bundle: readBundle(context.extensionPath),
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    pathVariable,
    platform: process.platform,
  });
  return [found, interpreter];
}

/** Settings the server reads (errknow_ls/lsp/settings.py); extension-only keys stay here. */
function serverSettings(): Record<string, unknown> {
  const keys = [
    "select", "ignore", "severity", "records", "locale", "exclude",
    "logLevel", "logGlobs", "scanWorkspace",
  ];
  // The interpreter the server runs with is the project's: the server reads its torch version there.
  return { ...Object.fromEntries(keys.map((key) => [key, settings().get(key)])), interpreter: interpreter?.path ?? null };
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

const DISMISSED = "errknow.firstRun.dismissed";
const DONT_SHOW = "Don't show again";
const LABELS: Record<Action, string> = {
  selectInterpreter: "Select Interpreter",
  useBundled: "Use the bundled server",
  useFromEnvironment: "Use the environment's errknow-ls",
  openSettings: "Open Settings",
  manageTrust: "Manage Workspace Trust",
};

/** The settings editor on `query`, at the level whose value is in force: a value the workspace sets
 * wins over the user's, so a fix typed under User would change nothing. */
async function openSettings(query: string, key: string): Promise<void> {
  const values = settings().inspect(key);
  const workspace = values?.workspaceFolderValue !== undefined || values?.workspaceValue !== undefined;
  const command = workspace ? "workbench.action.openWorkspaceSettings" : "workbench.action.openSettings";
  await vscode.commands.executeCommand(command, { query });
}

async function act(action: Action): Promise<void> {
  const target = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  switch (action) {
    case "selectInterpreter":
      // The Python extension's picker when it is there; else the setting that names one.
      if ((await vscode.commands.getCommands(true)).includes("python.setInterpreter")) {
        await vscode.commands.executeCommand("python.setInterpreter");
      } else {
        await openSettings("errknow.interpreter", "interpreter");
      }
      return;
    case "useBundled":
      await settings().update("importStrategy", "useBundled", target);
      return;
    case "useFromEnvironment":
      await settings().update("importStrategy", "fromEnvironment", target);
      return;
    case "openSettings":
      // Every errknow setting is resource-scoped, so this lists them in local and remote windows alike.
      await openSettings("@ext:errknow.errknow-ls", serverCommandSet() ? "serverCommand" : "interpreter");
      return;
    case "manageTrust":
      await vscode.commands.executeCommand("workbench.trust.manage");
      return;
  }
}

function serverCommandSet(): boolean {
  return settings().get<string[]>("serverCommand", []).length > 0;
}

/** Whether this workspace chose "Don't show again": a file in the workspace's own extension storage
 * (written on disk at once; a memento can be lost when the window reloads right after the click). */
async function dismissed(context: vscode.ExtensionContext): Promise<boolean> {
  if (!context.storageUri) {
    return context.workspaceState.get<boolean>(DISMISSED, false);
  }
  try {
    await vscode.workspace.fs.stat(vscode.Uri.joinPath(context.storageUri, DISMISSED));
    return true;
  } catch {
    return false;
  }
}

async function dismiss(context: vscode.ExtensionContext): Promise<void> {
  if (!context.storageUri) {
    await context.workspaceState.update(DISMISSED, true);
    return;
  }
  await vscode.workspace.fs.createDirectory(context.storageUri);
  await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(context.storageUri, DISMISSED), new Uint8Array());
}

/** Whether this window showed why no server runs: VS Code cannot take a message back, so the start
 * that follows says that it no longer holds. */
let shownProblem = false;

/** The problem, once per window, unless this workspace said "don't show again"; the log has it always. */
async function tell(context: vscode.ExtensionContext, problem: Problem): Promise<void> {
  output?.error(problem.message);
  if (await dismissed(context)) {
    output?.info("(not shown: this workspace chose \"Don't show again\")");
    return;
  }
  const labels = problem.actions.map((action) => LABELS[action]);
  shownProblem = true;
  const choice = await vscode.window.showWarningMessage(problem.message, ...labels, DONT_SHOW);
  if (choice === DONT_SHOW) {
    await dismiss(context);
    output?.info("this workspace will not show that message again (the log still has it)");
    return;
  }
  const action = problem.actions.find((candidate) => LABELS[candidate] === choice);
  if (action) {
    await act(action);
  }
}

/** Start as soon as errknow-ls appears where the lookup would find it (an install, no reload). */
function watchForInstall(context: vscode.ExtensionContext, interpreter: Interpreter | undefined): void {
  const places = new Set([
    ...(interpreter ? [path.dirname(interpreter.path)] : []),
    ...(vscode.workspace.workspaceFolders ?? []).flatMap((f) => [".venv", "venv"].map((v) => path.join(f.uri.fsPath, v, "bin"))),
  ]);
  for (const place of places) {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(place), "errknow-ls*"));
    installWatchers.push(watcher);
    context.subscriptions.push(watcher, watcher.onDidCreate(() => void restart(context)));
  }
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    // Restricted Mode: nothing runs until the user trusts the workspace (the settings that choose
    // what runs are the workspace's to set).
    whyNotRunning(RESTRICTED.message);
    void tell(context, RESTRICTED);
    return;
  }
  const [found, selected] = await lookupServer(context);
  interpreter = selected;
  whyNotRunning(isProblem(found) ? found.message : undefined);
  if (isProblem(found)) {
    watchForInstall(context, selected);
    // Not awaited: activation must not wait for the user to answer.
    void tell(context, found);
    return;
  }
  server = found;
  output?.info(`starting ${server.command} ${server.args.join(" ")} (from ${server.origin})`);
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const executable = { command: server.command, args: server.args, transport: TransportKind.stdio, options: cwd ? { cwd } : {} };
  const serverOptions: ServerOptions = { run: executable, debug: executable };
  client = new LanguageClient("errknow", NAME, serverOptions, clientOptions());
  context.subscriptions.push(client);
  try {
    await client.start();
    if (shownProblem) {
      shownProblem = false;
      void vscode.window.showInformationMessage(`errknow-ls is running now (${server.origin}).`);
    }
  } catch (error) {
    void vscode.window.showErrorMessage(`errknow-ls failed to start (${server.command}): ${String(error)}`);
  }
}

/** Restarts run one after the other: an install, a setting and a trust grant can come together. */
let restarting: Promise<void> = Promise.resolve();

function restart(context: vscode.ExtensionContext): Promise<void> {
  restarting = restarting.then(() => restartNow(context));
  return restarting;
}

async function restartNow(context: vscode.ExtensionContext): Promise<void> {
  const running = client;
  client = undefined;
  for (const watcher of installWatchers.splice(0)) {
    watcher.dispose();
  }
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
    vscode.commands.registerCommand("errknow.clearRunErrors", () => clearRunErrors(client)),
    watchTerminals(() => client, log),
    vscode.workspace.registerTextDocumentContentProvider(EXPLANATION_SCHEME, explanationProvider),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (["errknow.serverCommand", "errknow.interpreter", "errknow.importStrategy"].some((key) => event.affectsConfiguration(key))) {
        void restart(context);
      } else if (event.affectsConfiguration("errknow") && client?.isRunning()) {
        // The server re-reads its settings (and pulls workspace/configuration) on this notification.
        void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { errknow: serverSettings() } });
      }
    }),
  );
  // A change of the active environment in the Python extension restarts the server with it.
  context.subscriptions.push(await onInterpreterChange(() => void restart(context)));
  // Trusting the workspace starts the server held back in Restricted Mode, with no reload.
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void restart(context)));
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.dispose();
  client = undefined;
}
