// The server lookup (src/server.ts, compiled to out/ by `npm test`): the setting, the interpreter's
// neighbour, the workspace's virtual environment, PATH, and nothing found.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";

const { findServer, NOT_FOUND } = createRequire(import.meta.url)("../out/server.js");

function place(file, mode = 0o755) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, "#!/bin/sh\n");
  chmodSync(file, mode);
  return file;
}

function lookup(overrides = {}) {
  return { serverCommand: [], interpreter: null, workspaceFolders: [], pathVariable: "", platform: "linux", ...overrides };
}

const scratch = () => mkdtempSync(path.join(tmpdir(), "errknow-lookup-"));

test("nothing anywhere: not found, and the message names every place looked in and the fix", () => {
  const root = scratch();
  const empty = path.join(root, "bin");
  mkdirSync(empty);
  const found = findServer(
    lookup({
      interpreter: path.join(root, "python", "bin", "python"),
      workspaceFolders: [path.join(root, "ws")],
      pathVariable: [empty, "", path.join(root, "missing")].join(path.delimiter),
    }),
  );
  assert.equal(found, undefined);
  for (const where of ["errknow.serverCommand", "errknow.interpreter", ".venv/bin", "PATH", "pip install errknow-ls"]) {
    assert.ok(NOT_FOUND.includes(where), where);
  }
});

test("what is not an executable file does not count: not found", () => {
  const root = scratch();
  place(path.join(root, "ws", ".venv", "bin", "errknow-ls"), 0o644);
  mkdirSync(path.join(root, "bin", "errknow-ls"), { recursive: true });
  const found = findServer(lookup({ workspaceFolders: [path.join(root, "ws")], pathVariable: path.join(root, "bin") }));
  assert.equal(found, undefined);
});

test("an empty PATH entry is not the current directory", () => {
  const root = scratch();
  place(path.join(root, "errknow-ls"));
  const cwd = process.cwd();
  process.chdir(root);
  try {
    assert.equal(findServer(lookup({ pathVariable: `${path.delimiter}` })), undefined);
  } finally {
    process.chdir(cwd);
  }
});

test("the setting wins, taken as it is", () => {
  const found = findServer(lookup({ serverCommand: ["python", "-m", "errknow_ls", "serve"] }));
  assert.deepEqual(found, { command: "python", args: ["-m", "errknow_ls", "serve"], origin: "the errknow.serverCommand setting" });
});

test("then beside the interpreter, then the workspace's .venv or venv, then PATH", () => {
  const root = scratch();
  const beside = place(path.join(root, "py", "bin", "errknow-ls"));
  const venv = place(path.join(root, "ws", "venv", "bin", "errknow-ls"));
  const onPath = place(path.join(root, "bin", "errknow-ls"));
  const all = { interpreter: path.join(root, "py", "bin", "python"), workspaceFolders: [path.join(root, "ws")], pathVariable: path.join(root, "bin") };
  assert.deepEqual(findServer(lookup(all)), { command: beside, args: ["serve"], origin: "beside errknow.interpreter" });
  assert.deepEqual(findServer(lookup({ ...all, interpreter: null })), {
    command: venv,
    args: ["serve"],
    origin: "the workspace's virtual environment",
  });
  assert.deepEqual(findServer(lookup({ pathVariable: all.pathVariable })), { command: onPath, args: ["serve"], origin: "PATH" });
});

test("on Windows: Scripts\\errknow-ls.exe", () => {
  const root = scratch();
  const script = place(path.join(root, "ws", ".venv", "Scripts", "errknow-ls.exe"));
  assert.equal(findServer(lookup({ workspaceFolders: [path.join(root, "ws")], platform: "win32" }))?.command, script);
  assert.equal(findServer(lookup({ workspaceFolders: [path.join(root, "ws")] })), undefined);
});
