// Which errknow-ls to start, as the Python tools extensions decide it: the errknow.serverCommand
// setting; else, by errknow.importStrategy, the server bundled with the extension run by the selected
// interpreter (useBundled), or the one installed in the interpreter's environment (fromEnvironment:
// beside it, the workspace's .venv, PATH). When nothing can start, a problem that says why and
// offers the one action that helps.
import * as fs from "node:fs";
import * as path from "node:path";

export const MIN_PYTHON: readonly [number, number] = [3, 11];

export type ImportStrategy = "useBundled" | "fromEnvironment";

export interface Interpreter {
  path: string;
  /** [major, minor]; undefined when it does not run. */
  version: readonly [number, number] | undefined;
  /** Where it came from, for the log and messages. */
  origin: string;
}

/** The server the extension carries: `tool/serve.py` run with `libs/` first on sys.path. */
export interface Bundle {
  script: string;
  /** The Python [major, minor] versions its compiled dependencies were built for, one folder each. */
  pythons: readonly (readonly [number, number])[];
}

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where it came from, for the log and the error message. */
  origin: string;
}

export type Action = "selectInterpreter" | "useBundled" | "useFromEnvironment" | "openSettings" | "manageTrust";

export interface Problem {
  message: string;
  /** The buttons, the one that helps most first. */
  actions: Action[];
}

export interface Lookup {
  serverCommand: readonly string[];
  importStrategy: ImportStrategy;
  interpreter: Interpreter | undefined;
  bundle: Bundle | undefined;
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

const dotted = (version: readonly [number, number]): string => version.join(".");

function tooOld(version: readonly [number, number]): boolean {
  return version[0] < MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] < MIN_PYTHON[1]);
}

/** The server to start, or the problem that keeps any from starting. */
export function findServer(lookup: Lookup): ServerCommand | Problem {
  const [first, ...rest] = lookup.serverCommand;
  if (first) {
    return { command: first, args: rest, origin: "the errknow.serverCommand setting" };
  }
  if (lookup.importStrategy === "useBundled" && lookup.bundle) {
    return bundled(lookup.bundle, lookup.interpreter);
  }
  return fromEnvironment(lookup);
}

function bundled(bundle: Bundle, interpreter: Interpreter | undefined): ServerCommand | Problem {
  if (!interpreter) {
    return {
      message:
        `errknow-ls needs a Python ≥ ${dotted(MIN_PYTHON)} to run its bundled server, and none is selected: ` +
        "select the project's interpreter (Python: Select Interpreter) or set errknow.interpreter.",
      actions: ["selectInterpreter", "openSettings"],
    };
  }
  const version = interpreter.version;
  if (!version) {
    return {
      message:
        `The interpreter errknow-ls would run with (${interpreter.path}, ${interpreter.origin}) does not run: ` +
        `select a Python ≥ ${dotted(MIN_PYTHON)}.`,
      actions: ["selectInterpreter", "openSettings"],
    };
  }
  if (tooOld(version)) {
    return {
      message:
        `errknow-ls needs Python ≥ ${dotted(MIN_PYTHON)}; the selected interpreter (${interpreter.path}, ` +
        `${interpreter.origin}) is Python ${dotted(version)}. Select a newer one.`,
      actions: ["selectInterpreter", "openSettings"],
    };
  }
  if (!bundle.pythons.some((built) => built[0] === version[0] && built[1] === version[1])) {
    const built = bundle.pythons.map(dotted).join(", ");
    return {
      message:
        `The errknow-ls bundled with this extension was built for Python ${built} (its ` +
        `compiled dependencies: pydantic-core, regex, pyahocorasick, rpds-py); the selected interpreter is Python ` +
        `${dotted(version)}. Select a Python ${built}, or install errknow-ls into the ` +
        "environment and use it (errknow.importStrategy: fromEnvironment).",
      actions: ["selectInterpreter", "useFromEnvironment"],
    };
  }
  return {
    command: interpreter.path,
    args: [bundle.script],
    origin: `bundled with the extension, run by ${interpreter.origin}`,
  };
}

function fromEnvironment(lookup: Lookup): ServerCommand | Problem {
  if (lookup.interpreter) {
    const beside = path.join(path.dirname(lookup.interpreter.path), scriptName(lookup.platform));
    if (executable(beside)) {
      return { command: beside, args: ["serve"], origin: `beside ${lookup.interpreter.origin}` };
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
  return notInstalled(lookup);
}

function notInstalled(lookup: Lookup): Problem {
  const where = lookup.interpreter
    ? `the selected interpreter's environment (${lookup.interpreter.path})`
    : "any environment (no interpreter is selected)";
  const install = lookup.interpreter
    ? " Install it there from a clone, a git URL or a built wheel of errknow-ls (it is not on PyPI), e.g. " +
      `\`"${lookup.interpreter.path}" -m pip install /path/to/errknow-ls\`: the server starts as soon as it appears.`
    : "";
  const bundle = lookup.bundle
    ? " Or run the server bundled with this extension (errknow.importStrategy: useBundled)."
    : "";
  return {
    message:
      `errknow-ls is not installed in ${where}, the workspace's .venv or venv, or on PATH.${install}${bundle}`,
    // Beside "Don't show again", a notification shows "Use the bundled server" whole only alone.
    actions: lookup.bundle ? ["useBundled"] : ["selectInterpreter", "openSettings"],
  };
}

/** Restricted Mode: the extension starts no server until the workspace is trusted, and says so. */
export const RESTRICTED: Problem = {
  message:
    "errknow-ls is off in Restricted Mode: it would run a program that this workspace's settings " +
    "(errknow.interpreter, errknow.serverCommand) can choose. Until you trust the workspace there " +
    "are no diagnostics, hover, quick fixes or explanations of tracebacks from errknow; it starts as soon as you trust it.",
  actions: ["manageTrust"],
};

export function isProblem(found: ServerCommand | Problem): found is Problem {
  return "message" in found;
}

/** The bundle in the extension's `bundled/` directory, as `make editors` writes it (none in a
 * development checkout that was never packaged). */
export function readBundle(extensionPath: string): Bundle | undefined {
  const root = path.join(extensionPath, "bundled");
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "bundle.json"), "utf8")) as { pythons?: unknown };
    const pythons = manifest.pythons;
    if (!Array.isArray(pythons) || pythons.length === 0) {
      return undefined;
    }
    const versions: [number, number][] = [];
    for (const python of pythons) {
      if (typeof python !== "string" || !/^\d+\.\d+$/.test(python)) {
        return undefined;
      }
      const [major = 0, minor = 0] = python.split(".").map(Number);
      versions.push([major, minor]);
    }
    return { script: path.join(root, "tool", "serve.py"), pythons: versions };
  } catch {
    return undefined;
  }
}
