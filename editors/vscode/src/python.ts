// The interpreter the server runs with: errknow.interpreter when set, else the Python extension's
// active environment for the workspace (its API, @vscode/python-extension), else python3 on PATH.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { PythonExtension } from "@vscode/python-extension";
import * as vscode from "vscode";
import type { Interpreter } from "./server";

const PYTHON_EXTENSION = "ms-python.python";

let api: Promise<PythonExtension | undefined> | undefined;

/** The Python extension's API; undefined when it is not installed (or fails to activate). */
export function pythonExtension(): Promise<PythonExtension | undefined> {
  api ??= vscode.extensions.getExtension(PYTHON_EXTENSION)
    ? PythonExtension.api().catch(() => undefined)
    : Promise.resolve(undefined);
  return api;
}

/** Python's own answer to "which version are you?": [major, minor], or undefined if it does not run. */
export function askVersion(python: string): Promise<readonly [number, number] | undefined> {
  return new Promise((resolve) => {
    execFile(python, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { timeout: 20000 }, (error, stdout) => {
      const match = /^(\d+)\.(\d+)/.exec(stdout.trim());
      resolve(error || !match ? undefined : [Number(match[1]), Number(match[2])]);
    });
  });
}

export async function selectedInterpreter(
  configured: string | null,
  folder: vscode.Uri | undefined,
  pathVariable: string,
): Promise<Interpreter | undefined> {
  if (configured) {
    return { path: configured, version: await askVersion(configured), origin: "errknow.interpreter" };
  }
  const python = await pythonExtension();
  if (python) {
    const active = python.environments.getActiveEnvironmentPath(folder);
    const resolved = await python.environments.resolveEnvironment(active);
    const executable = resolved?.executable.uri?.fsPath;
    if (executable) {
      const version = resolved.version ? ([resolved.version.major, resolved.version.minor] as const) : undefined;
      return { path: executable, version: version ?? (await askVersion(executable)), origin: "the Python extension's interpreter" };
    }
  }
  for (const dir of pathVariable.split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    const candidate = path.join(dir, process.platform === "win32" ? "python.exe" : "python3");
    const version = await askVersion(candidate);
    if (version) {
      return { path: candidate, version, origin: "python3 on PATH" };
    }
  }
  return undefined;
}

/** Calls `listener` when the user picks another environment in the Python extension. */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable> {
  const python = await pythonExtension();
  return python ? python.environments.onDidChangeActiveEnvironmentPath(listener) : new vscode.Disposable(() => undefined);
}
