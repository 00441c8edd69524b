// The extension's commands: explain a traceback (selection or clipboard), show the records.
import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";

export const EXPLAIN = "errknow.explain";
export const RECORDS = "errknow.records";
export const CLEAR_RUNTIME = "errknow.clearRuntimeFindings";

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

const RESTART_HINT = "errknow-ls is not running: run “errknow: Restart the errknow-ls server”.";
/** Why no server runs, when the extension knows (none found, Restricted Mode): restarting cannot help then. */
let notRunning: string | undefined;

export function whyNotRunning(reason: string | undefined): void {
  notRunning = reason;
}

/** Whether the server runs; says why when it does not. */
function isRunning(client: LanguageClient | undefined): client is LanguageClient {
  if (!client?.isRunning()) {
    void vscode.window.showWarningMessage(notRunning ?? RESTART_HINT);
    return false;
  }
  return true;
}

export async function explainText(client: LanguageClient | undefined, text: string): Promise<void> {
  if (!isRunning(client)) {
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

/** One record as `errknow.records` lists it (errknow_ls/lsp/handlers/commands.py). */
interface RecordSummary {
  id: string;
  signature: string;
  tier: string;
  confidence: number;
  source: string | null;
}

function isSummary(value: unknown): value is RecordSummary {
  const entry = value as Partial<RecordSummary> | null;
  return typeof entry?.id === "string" && typeof entry.signature === "string";
}

// The running server answers: the records it loaded, from the directories its settings name.
async function listRecords(client: LanguageClient): Promise<RecordSummary[]> {
  const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command: RECORDS, arguments: [] });
  return Array.isArray(result) ? result.filter(isSummary) : [];
}

export async function showRecords(client: LanguageClient | undefined): Promise<void> {
  if (!isRunning(client)) {
    return;
  }
  const items = (await listRecords(client)).map((record) => ({
    label: record.id,
    description: `${record.tier}, confidence ${record.confidence.toFixed(2)}${record.source ? ` · ${record.source}` : ""}`,
    detail: record.signature,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `errknow: known errors (${String(items.length)})`,
    matchOnDescription: true,
    matchOnDetail: true,
    placeHolder: "Pick a record to read its explanation",
  });
  if (picked) {
    await explainText(client, picked.label);
  }
}

/** Takes back every error runs showed (terminals, logs, notebooks) until a run shows it again. */
export async function clearRunErrors(client: LanguageClient | undefined): Promise<void> {
  if (!isRunning(client)) {
    return;
  }
  await client.sendRequest(ExecuteCommandRequest.type, { command: CLEAR_RUNTIME, arguments: [] });
}
