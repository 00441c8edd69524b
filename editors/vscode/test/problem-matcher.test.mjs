// The contributed Python-traceback problem matchers, applied as VS Code applies them (see
// problem-collector.mjs) to the repository's example logs and to tracebacks the project's own Python
// prints: each traceback gives one problem, its exception line on its innermost frame.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { collect } from "./problem-collector.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXTENSION = path.dirname(HERE);
const REPO = path.resolve(EXTENSION, "..", "..");
const contributed = JSON.parse(readFileSync(path.join(EXTENSION, "package.json"), "utf8")).contributes.problemMatchers;

// The list the README tells users to put in their task: the test checks what users are told to use.
const readme = readFileSync(path.join(EXTENSION, "README.md"), "utf8");
const TASK_MATCHERS = JSON.parse(/"problemMatcher": (\[[^\]]*\])/.exec(readme)?.[1] ?? "[]").map((name) =>
  name.replace(/^\$/, ""),
);

const problems = (text) => collect(contributed, TASK_MATCHERS, text).map(({ file, line, message }) => ({ file, line, message }));
const exceptionLines = (text, prefix = "") =>
  text.split("\n").filter((line) => new RegExp(`^${prefix}\\w[\\w.]*(Error|Exception)\\b`).test(line));

test("the README's task list names every contributed matcher", () => {
  assert.deepEqual([...TASK_MATCHERS].sort(), contributed.map((matcher) => matcher.name).sort());
});

test("train_run.log: the RuntimeError on the innermost frame, not a source line", () => {
  const text = readFileSync(path.join(REPO, "examples", "train_run.log"), "utf8");
  const [runtimeError] = exceptionLines(text);
  assert.match(runtimeError, /^RuntimeError: Trying to backward through the graph a second time/);
  assert.deepEqual(problems(text), [
    {
      file: "/home/user/project/.venv/lib/python3.11/site-packages/torch/autograd/graph.py",
      line: 979,
      message: runtimeError,
    },
  ]);
});

test("ddp_run.log: each rank's RuntimeError (torchrun's [rank]: prefix) and torchrun's own error", () => {
  const text = readFileSync(path.join(REPO, "examples", "ddp_run.log"), "utf8");
  const runtimeError = exceptionLines(text, "\\[default1\\]:")[0]?.replace("[default1]:", "");
  assert.match(runtimeError ?? "", /^RuntimeError: Trying to backward/);
  const graph = "/home/user/project/.venv/lib/python3.11/site-packages/torch/autograd/graph.py";
  assert.deepEqual(problems(text), [
    { file: graph, line: 979, message: runtimeError },
    { file: graph, line: 979, message: runtimeError },
    {
      file: "/home/user/project/.venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py",
      line: 383,
      message: "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    },
  ]);
});

// Tracebacks printed by a real Python: the project's .venv (ERRKNOW_PYTHON overrides it).
const PYTHON = process.env.ERRKNOW_PYTHON ?? path.join(REPO, ".venv", "bin", "python");
const noPython = existsSync(PYTHON) ? false : `no Python at ${PYTHON}: run \`make venv\``;

// Python's own settings would change what it prints: carets only where the test asks.
const pythonEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !["PYTHONNODEBUGRANGES", "PYTHONSTARTUP"].includes(key)),
);

/** Run `source` as a script; its stderr, the script's path and the first line holding `marker`. */
function run(name, source, options = [], marker = "# raises") {
  const dir = mkdtempSync(path.join(tmpdir(), "errknow-matcher-"));
  const script = path.join(dir, name);
  writeFileSync(script, source);
  let stderr = "";
  try {
    execFileSync(PYTHON, [...options, script], { stdio: ["ignore", "ignore", "pipe"], env: pythonEnv });
  } catch (error) {
    stderr = String(error.stderr);
  }
  const line = source.split("\n").findIndex((text) => text.includes(marker)) + 1;
  return { stderr, script, line };
}

const CARETS = `def step(batch):
    return batch + super().missing  # raises: super() outside a class


def main():
    step(1)


main()
`;

const PLAIN = `def step(batch):
    raise RuntimeError(f"Trying to backward through the graph a second time (batch {batch})")


def main():
    step(1)


main()
`;

const MIXED_MARKERS = `def rate(correct, total):
    return correct / (total - total)  # raises


rate(3, 4)
`;

const SYNTAX = `x = 1
y = (x,  # raises
`;

const caretLine = /^\s+[~^]+\s*$/m;

for (const [label, options, carets] of [
  ["with the 3.11 carets", [], true],
  ["without carets (-X no_debug_ranges)", ["-X", "no_debug_ranges"], false],
]) {
  test(`a RuntimeError raised in C on a sub-expression, ${label}`, { skip: noPython }, () => {
    const { stderr, script, line } = run("carets.py", CARETS, options);
    assert.equal(caretLine.test(stderr), carets, stderr);
    const [runtimeError] = exceptionLines(stderr);
    assert.match(runtimeError, /^RuntimeError: super\(\)/);
    assert.deepEqual(problems(stderr), [{ file: script, line, message: runtimeError }]);
  });
}

test("a RuntimeError raised by a whole-line statement (no carets)", { skip: noPython }, () => {
  // No comment on the raising line: a statement filling its line gets no carets.
  const { stderr, script, line } = run("plain.py", PLAIN, [], "raise RuntimeError");
  assert.equal(caretLine.test(stderr), false, stderr);
  assert.deepEqual(problems(stderr), [
    { file: script, line, message: "RuntimeError: Trying to backward through the graph a second time (batch 1)" },
  ]);
});

test("markers mixing ~ and ^", { skip: noPython }, () => {
  const { stderr, script, line } = run("zero.py", MIXED_MARKERS);
  assert.match(stderr, /~+\^~+/);
  assert.deepEqual(problems(stderr), [{ file: script, line, message: "ZeroDivisionError: division by zero" }]);
});

test("a SyntaxError: a frame without a function, a ^ under the code", { skip: noPython }, () => {
  const { stderr, script, line } = run("syntax.py", SYNTAX);
  assert.deepEqual(problems(stderr), [{ file: script, line, message: "SyntaxError: '(' was never closed" }]);
});

const GONE = `import os


def step():
    os.remove(__file__)
    raise RuntimeError("the script removed itself")  # raises


step()
`;

test("a script whose file is gone by the time Python prints its traceback: no source lines", { skip: noPython }, () => {
  const { stderr, script, line } = run("gone.py", GONE);
  assert.doesNotMatch(stderr, /^ {4}\S/m, stderr);
  assert.deepEqual(problems(stderr), [{ file: script, line, message: "RuntimeError: the script removed itself" }]);
});

test("code run from a string has no file: no problem", { skip: noPython }, () => {
  let stderr = "";
  try {
    execFileSync(PYTHON, ["-c", "raise RuntimeError('no file')"], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    stderr = String(error.stderr);
  }
  assert.match(stderr, /^RuntimeError: no file$/m);
  assert.deepEqual(problems(stderr), []);
});
