// Terminal output to the server: each command run in a terminal with shell integration is read
// through execution.read() and sent as `errknow/terminalOutput` notifications, a line-aligned
// chunk at a time, in order, per command; a last one says the run ended and with which exit code
// (a clean re-run of the same command in the same terminal takes back the errors earlier runs showed).
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
  /** The terminal's number in the terminal list (1 for the first), as messages name it. */
  terminal: number | null;
  /** The command line: with `terminal`, what makes two runs the same program. */
  command: string;
  /** The run ended (the last notification of `source`, with no text). */
  end?: boolean;
  /** Its exit code, when the shell reported one. */
  exitCode?: number | null;
}

const END_WAIT_MS = 2000;
const ended = new WeakMap<vscode.TerminalShellExecution, (exitCode: number | undefined) => void>();

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
  exitCode: Promise<number | undefined>,
): Promise<void> {
  const source = sourceOf(event.terminal, await event.terminal.processId);
  const cwd = event.execution.cwd?.fsPath ?? event.shellIntegration.cwd?.fsPath ?? null;
  const place = vscode.window.terminals.indexOf(event.terminal);
  const run = { cwd, source, terminal: place < 0 ? null : place + 1, command: event.execution.commandLine.value };
  let pending = "";
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const notify = (message: TerminalOutput): void => {
    const running = client();
    if (running?.isRunning()) {
      void running.sendNotification(TERMINAL_OUTPUT, message);
    }
  };
  const send = (text: string): void => {
    if (text) {
      notify({ text, ...run });
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
  const timeout = new Promise<undefined>((resolve) => {
    setTimeout(() => {
      resolve(undefined);
    }, END_WAIT_MS);
  });
  notify({ text: "", ...run, end: true, exitCode: (await Promise.race([exitCode, timeout])) ?? null });
  log.info(`terminal: sent ${sent} characters of \`${event.execution.commandLine.value}\` as ${source}`);
}

export function watchTerminals(
  client: () => LanguageClient | undefined,
  log: vscode.LogOutputChannel,
): vscode.Disposable {
  const started = vscode.window.onDidStartTerminalShellExecution((event) => {
    if (!vscode.workspace.getConfiguration("errknow").get<boolean>("terminal.forward", true)) {
      return;
    }
    const exitCode = new Promise<number | undefined>((resolve) => {
      ended.set(event.execution, resolve);
    });
    forward(client, log, event, exitCode).catch((error: unknown) => {
      log.warn(`terminal: reading the output failed: ${String(error)}`);
    });
  });
  const finished = vscode.window.onDidEndTerminalShellExecution((event) => {
    ended.get(event.execution)?.(event.exitCode);
    ended.delete(event.execution);
  });
  return vscode.Disposable.from(started, finished);
}
