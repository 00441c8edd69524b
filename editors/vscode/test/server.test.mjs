// The server lookup (src/server.ts, compiled to out/ by `npm test`): the setting; the bundled server
// run by the selected interpreter (missing, too old, or another version than the bundle's: a problem
// with the action that helps); the environment's own install (beside the interpreter, the workspace's
// virtual environment, PATH); and the bundle's manifest.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";

const { findServer, isProblem, readBundle } = createRequire(import.meta.url)("../out/server.js");

function place(file, mode = 0o755, content = "#!/bin/sh\n") {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
}

const BUNDLE = { script: "/ext/bundled/tool/serve.py", pythons: [[3, 11], [3, 13]] };
const python = (file, version = [3, 11]) => ({ path: file, version, origin: "the Python extension's interpreter" });

function lookup(overrides = {}) {
  return {
    serverCommand: [],
    importStrategy: "fromEnvironment",
    interpreter: undefined,
    bundle: undefined,
    workspaceFolders: [],
    pathVariable: "",
    platform: "linux",
    ...overrides,
  };
}

const scratch = () => mkdtempSync(path.join(tmpdir(), "errknow-lookup-"));

test("the setting wins, taken as it is, whatever the strategy", () => {
  for (const importStrategy of ["useBundled", "fromEnvironment"]) {
    const found = findServer(lookup({ importStrategy, bundle: BUNDLE, serverCommand: ["python", "-m", "errknow_ls", "serve"] }));
    assert.deepEqual(found, { command: "python", args: ["-m", "errknow_ls", "serve"], origin: "the errknow.serverCommand setting" });
  }
});

test("useBundled: the selected interpreter runs the bundled server", () => {
  const found = findServer(lookup({ importStrategy: "useBundled", bundle: BUNDLE, interpreter: python("/py/bin/python3") }));
  assert.deepEqual(found, {
    command: "/py/bin/python3",
    args: [BUNDLE.script],
    origin: "bundled with the extension, run by the Python extension's interpreter",
  });
});

test("useBundled without an interpreter: select one", () => {
  const found = findServer(lookup({ importStrategy: "useBundled", bundle: BUNDLE }));
  assert.ok(isProblem(found));
  assert.deepEqual(found.actions, ["selectInterpreter", "openSettings"]);
  assert.match(found.message, /Python ≥ 3\.11/);
  assert.doesNotMatch(found.message, /\.venv\/bin\/pip/);
});

test("useBundled with an interpreter that does not run: says so, and offers to select another", () => {
  const found = findServer(lookup({ importStrategy: "useBundled", bundle: BUNDLE, interpreter: { ...python("/gone/python"), version: undefined } }));
  assert.ok(isProblem(found));
  assert.match(found.message, /\/gone\/python, the Python extension's interpreter\) does not run/);
  assert.deepEqual(found.actions, ["selectInterpreter", "openSettings"]);
});

test("useBundled with a Python older than 3.11: says which, and offers to select another", () => {
  const found = findServer(lookup({ importStrategy: "useBundled", bundle: BUNDLE, interpreter: python("/old/python", [3, 9]) }));
  assert.ok(isProblem(found));
  assert.match(found.message, /\/old\/python, the Python extension's interpreter\) is Python 3\.9/);
  assert.equal(found.actions[0], "selectInterpreter");
});

test("useBundled with another Python than the bundle's: select it, or use the environment's install", () => {
  const found = findServer(lookup({ importStrategy: "useBundled", bundle: BUNDLE, interpreter: python("/py/python", [3, 12]) }));
  assert.ok(isProblem(found));
  assert.match(found.message, /built for Python 3\.11, 3\.13/);
  assert.deepEqual(found.actions, ["selectInterpreter", "useFromEnvironment"]);
});

test("useBundled with one of the bundle's Python versions: the bundled server", () => {
  const found = findServer(lookup({ importStrategy: "useBundled", bundle: BUNDLE, interpreter: python("/py/python", [3, 13]) }));
  assert.equal(found.command, "/py/python");
  assert.deepEqual(found.args, ["/ext/bundled/tool/serve.py"]);
});

test("useBundled when the extension carries no bundle (a development build): the environment's install", () => {
  const root = scratch();
  const beside = place(path.join(root, "py", "bin", "errknow-ls"));
  const found = findServer(lookup({ importStrategy: "useBundled", interpreter: python(path.join(root, "py", "bin", "python")) }));
  assert.deepEqual(found, { command: beside, args: ["serve"], origin: "beside the Python extension's interpreter" });
});

test("fromEnvironment: beside the interpreter, then the workspace's .venv or venv, then PATH", () => {
  const root = scratch();
  const beside = place(path.join(root, "py", "bin", "errknow-ls"));
  const venv = place(path.join(root, "ws", "venv", "bin", "errknow-ls"));
  const onPath = place(path.join(root, "bin", "errknow-ls"));
  const all = { interpreter: python(path.join(root, "py", "bin", "python")), workspaceFolders: [path.join(root, "ws")], pathVariable: path.join(root, "bin") };
  assert.equal(findServer(lookup(all)).command, beside);
  assert.deepEqual(findServer(lookup({ ...all, interpreter: undefined })), {
    command: venv,
    args: ["serve"],
    origin: "the workspace's virtual environment",
  });
  assert.deepEqual(findServer(lookup({ pathVariable: all.pathVariable })), { command: onPath, args: ["serve"], origin: "PATH" });
});

test("fromEnvironment with nothing installed: no .venv/bin/pip advice; the install goes to the interpreter, or use the bundle", () => {
  const root = scratch();
  const found = findServer(
    lookup({ bundle: BUNDLE, interpreter: python(path.join(root, "py", "bin", "python")), workspaceFolders: [path.join(root, "ws")] }),
  );
  assert.ok(isProblem(found));
  assert.deepEqual(found.actions, ["useBundled"]);
  assert.ok(found.message.includes(`"${path.join(root, "py", "bin", "python")}" -m pip install`));
  assert.doesNotMatch(found.message, /\.venv\/bin\/pip/);
  const withoutBundle = findServer(lookup({}));
  assert.deepEqual(withoutBundle.actions, ["selectInterpreter", "openSettings"]);
});

test("what is not an executable file does not count", () => {
  const root = scratch();
  place(path.join(root, "ws", ".venv", "bin", "errknow-ls"), 0o644);
  mkdirSync(path.join(root, "bin", "errknow-ls"), { recursive: true });
  assert.ok(isProblem(findServer(lookup({ workspaceFolders: [path.join(root, "ws")], pathVariable: path.join(root, "bin") }))));
});

test("an empty PATH entry is not the current directory", () => {
  const root = scratch();
  place(path.join(root, "errknow-ls"));
  const cwd = process.cwd();
  process.chdir(root);
  try {
    assert.ok(isProblem(findServer(lookup({ pathVariable: `${path.delimiter}` }))));
  } finally {
    process.chdir(cwd);
  }
});

test("on Windows: Scripts\\errknow-ls.exe", () => {
  const root = scratch();
  const script = place(path.join(root, "ws", ".venv", "Scripts", "errknow-ls.exe"));
  assert.equal(findServer(lookup({ workspaceFolders: [path.join(root, "ws")], platform: "win32" })).command, script);
  assert.ok(isProblem(findServer(lookup({ workspaceFolders: [path.join(root, "ws")] }))));
});

test("the bundle's manifest: its Python versions, or no bundle when missing or bad", () => {
  const root = scratch();
  assert.equal(readBundle(root), undefined);
  place(path.join(root, "bundled", "bundle.json"), 0o644, '{"pythons": ["3.11", "3.12"], "platform": "win32-x64"}');
  assert.deepEqual(readBundle(root), { script: path.join(root, "bundled", "tool", "serve.py"), pythons: [[3, 11], [3, 12]] });
  place(path.join(root, "bundled", "bundle.json"), 0o644, '{"pythons": ["3.12", 3]}');
  assert.equal(readBundle(root), undefined);
  place(path.join(root, "bundled", "bundle.json"), 0o644, '{"python": "3.12"}');
  assert.equal(readBundle(root), undefined);
});
