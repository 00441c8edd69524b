// Terminal output to the server: each command run in a terminal with shell integration is read
// through execution.read() and sent as `errknow/terminalOutput` notifications, a line-aligned
// chunk at a time, in order, per command.
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";

export const TERMINAL_OUTPUT = "errknow/terminalOutput";

export interface TerminalOutput {
  /** Consecutive output of one command, cut at line ends, escape sequences and all. */
  text: string;
  /** The directory the command ran in, for relative paths in the traceback. */
  cwd: string | null;
  /** Which run printed it: the same for every chunk of one command. */
  source: string;
}

const FLUSH_MS = 100;

let runs = 0;

function sourceOf(terminal: vscode.Terminal, pid: number | undefined): string {
  runs += 1;
  const name = encodeURIComponent(terminal.name);
  return `vscode-terminal://${pid === undefined ? "unknown" : String(pid)}/${name}?run=${String(runs)}`;
}

async function forward(
  client: () => LanguageClient | undefined,
  log: vscode.LogOutputChannel,
  event: vscode.TerminalShellExecutionStartEvent,
): Promise<void> {
  const source = sourceOf(event.terminal, await event.terminal.processId);
  const cwd = event.execution.cwd?.fsPath ?? event.shellIntegration.cwd?.fsPath ?? null;
  let pending = "";
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const send = (text: string): void => {
    const running = client();
    if (text && running?.isRunning()) {
      const message: TerminalOutput = { text, cwd, source };
      void running.sendNotification(TERMINAL_OUTPUT, message);
      sent += text.length;
    }
  };
  const flushLines = (): void => {
    const end = pending.lastIndexOf("\n") + 1;
    send(pending.slice(0, end));
    pending = pending.slice(end);
  };
  for await (const data of event.execution.read()) {
    pending += data;
    clearTimeout(timer);
    timer = setTimeout(flushLines, FLUSH_MS);
  }
  clearTimeout(timer);
  if (pending) {
    send(pending.endsWith("\n") ? pending : pending + "\n");
  }
  log.info(`terminal: sent ${sent} characters of \`${event.execution.commandLine.value}\` as ${source}`);
}

export function watchTerminals(
  client: () => LanguageClient | undefined,
  log: vscode.LogOutputChannel,
): vscode.Disposable {
  return vscode.window.onDidStartTerminalShellExecution((event) => {
    if (!vscode.workspace.getConfiguration("errknow").get<boolean>("terminal.forward", true)) {
      return;
    }
    forward(client, log, event).catch((error: unknown) => {
      log.warn(`terminal: reading the output failed: ${String(error)}`);
    });
  });
}
