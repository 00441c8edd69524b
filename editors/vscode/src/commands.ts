// The extension's commands: explain a traceback (selection or clipboard), show the records.
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";
import type { ServerCommand } from "./server";

export const EXPLAIN = "errknow.explain";

interface Explanation {
  records: string[];
  markdown: string;
}

export async function explain(client: LanguageClient, subject: string): Promise<Explanation> {
  const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
    command: EXPLAIN,
    arguments: [subject],
  });
  const explanation = result as Partial<Explanation> | null;
  return { records: explanation?.records ?? [], markdown: explanation?.markdown ?? "" };
}

// Explanations are read-only documents of their own scheme, shown as a Markdown preview: nothing to
// save, nothing left dirty.
export const EXPLANATION_SCHEME = "errknow-explanation";
const explanations = new Map<string, string>();
let shown = 0;

export const explanationProvider: vscode.TextDocumentContentProvider = {
  provideTextDocumentContent: (uri) => explanations.get(uri.path) ?? "",
};

async function show(explanation: Explanation): Promise<void> {
  shown += 1;
  const name = explanation.records.map((id) => id.split("/").pop() ?? id).join(", ") || "explanation";
  const uri = vscode.Uri.from({ scheme: EXPLANATION_SCHEME, path: `/${name} (${String(shown)}).md` });
  explanations.set(uri.path, explanation.markdown);
  await vscode.commands.executeCommand("markdown.showPreview", uri);
}

function selectedText(): string {
  const editor = vscode.window.activeTextEditor;
  if (editor && !editor.selection.isEmpty) {
    return editor.document.getText(editor.selection);
  }
  return "";
}

async function selectedTerminalText(): Promise<string> {
  // The terminal's selection is only reachable through the clipboard: copy it, read it, put it back.
  if (!vscode.window.activeTerminal) {
    return "";
  }
  const saved = await vscode.env.clipboard.readText();
  await vscode.commands.executeCommand("workbench.action.terminal.copySelection");
  const text = await vscode.env.clipboard.readText();
  await vscode.env.clipboard.writeText(saved);
  return text === saved ? "" : text;
}

export async function explainText(client: LanguageClient | undefined, text: string): Promise<void> {
  if (!client?.isRunning()) {
    void vscode.window.showWarningMessage("errknow-ls is not running: run “errknow: Restart the errknow-ls server”.");
    return;
  }
  if (!text.trim()) {
    void vscode.window.showInformationMessage("errknow: select a traceback (or copy one) first.");
    return;
  }
  const explanation = await explain(client, text);
  if (!explanation.markdown) {
    void vscode.window.showInformationMessage("errknow: no known error matches this text.");
    return;
  }
  await show(explanation);
}

export async function explainSelection(client: LanguageClient | undefined): Promise<void> {
  const text = selectedText() || (await selectedTerminalText()) || (await vscode.env.clipboard.readText());
  await explainText(client, text);
}

export async function explainClipboard(client: LanguageClient | undefined): Promise<void> {
  await explainText(client, await vscode.env.clipboard.readText());
}

function listRecords(server: ServerCommand): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(server.command, ["records", "list"], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${server.command} records list: ${stderr || error.message}`));
      } else {
        resolve(stdout);
      }
    });
  });
}

export async function showRecords(client: LanguageClient | undefined, server: ServerCommand | undefined): Promise<void> {
  if (!server) {
    void vscode.window.showErrorMessage("errknow-ls was not found: see the errknow.serverCommand setting.");
    return;
  }
  const items = (await listRecords(server))
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => {
      const [id = "", tier = "", confidence = "", signature = ""] = line.split("\t");
      return { label: id, description: `${tier}, confidence ${confidence}`, detail: signature };
    });
  const picked = await vscode.window.showQuickPick(items, {
    title: "errknow: known errors",
    matchOnDetail: true,
    placeHolder: "Pick a record to read its explanation",
  });
  if (picked) {
    await explainText(client, picked.label);
  }
}
