// Finding the errknow-ls command: the setting, the interpreter's neighbour, the workspace's .venv, PATH.
import * as fs from "node:fs";
import * as path from "node:path";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where it came from, for the log and the error message. */
  origin: string;
}

export interface Lookup {
  serverCommand: readonly string[];
  interpreter: string | null;
  workspaceFolders: readonly string[];
  pathVariable: string;
  platform: NodeJS.Platform;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function scriptName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "errknow-ls.exe" : "errknow-ls";
}

function venvScript(folder: string, platform: NodeJS.Platform): string[] {
  const bin = platform === "win32" ? "Scripts" : "bin";
  return [".venv", "venv"].map((venv) => path.join(folder, venv, bin, scriptName(platform)));
}

export function findServer(lookup: Lookup): ServerCommand | undefined {
  const [first, ...rest] = lookup.serverCommand;
  if (first) {
    return { command: first, args: rest, origin: "the errknow.serverCommand setting" };
  }
  if (lookup.interpreter) {
    const beside = path.join(path.dirname(lookup.interpreter), scriptName(lookup.platform));
    if (executable(beside)) {
      return { command: beside, args: ["serve"], origin: "beside errknow.interpreter" };
    }
  }
  for (const folder of lookup.workspaceFolders) {
    for (const candidate of venvScript(folder, lookup.platform)) {
      if (executable(candidate)) {
        return { command: candidate, args: ["serve"], origin: "the workspace's virtual environment" };
      }
    }
  }
  for (const dir of lookup.pathVariable.split(path.delimiter)) {
    const candidate = dir && path.join(dir, scriptName(lookup.platform));
    if (candidate && executable(candidate)) {
      return { command: candidate, args: ["serve"], origin: "PATH" };
    }
  }
  return undefined;
}

export const NOT_FOUND =
  "errknow-ls was not found: not in errknow.serverCommand, not beside errknow.interpreter, not in the " +
  "workspace's .venv/bin, not on PATH. Install it into the project (`.venv/bin/pip install errknow-ls`) " +
  'or set "errknow.serverCommand": ["/path/to/errknow-ls", "serve"].';
