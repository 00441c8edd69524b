// VS Code's task problem matching, restated for tests: how a task's problem matchers turn output
// lines into problems. Follows src/vs/workbench/contrib/tasks/common/problemCollectors.ts
// (AbstractProblemCollector.tryFindMarker / tryMatchers) and problemMatcher.ts (MultiLineMatcher,
// fillProblemData, getMarkerMatch): every matcher of N patterns is tried on the last N lines, the
// longest matchers first; each pattern's regexp must match its line; a match clears the buffer; a
// `loop` last pattern goes on matching the following lines, one problem each.

/** A contributed matcher from package.json, compiled as VS Code compiles it: `new RegExp(regexp)`. */
function compile(matcher) {
  const patterns = (Array.isArray(matcher.pattern) ? matcher.pattern : [matcher.pattern]).map((pattern, index, all) => {
    if (pattern.loop && index !== all.length - 1) {
      throw new Error(`${matcher.name}: only the last pattern may loop`);
    }
    return { ...pattern, regexp: new RegExp(pattern.regexp) };
  });
  const has = (key) => patterns.some((pattern) => pattern[key] !== undefined);
  if (!has("file") || !has("message") || !(has("line") || has("location"))) {
    throw new Error(`${matcher.name}: VS Code rejects a matcher without file, line and message groups`);
  }
  return { name: matcher.name, patterns, data: undefined };
}

// VS Code trims spaces (Strings.trim) from file and message, not from line.
const trim = (value) => value.replace(/^ +| +$/g, "");

function fill(data, pattern, match) {
  for (const key of ["file", "message", "line"]) {
    const group = pattern[key];
    if (group === undefined || group >= match.length || match[group] === undefined) {
      continue;
    }
    const value = key === "line" ? match[group] : trim(match[group]);
    if (data[key] === undefined) {
      data[key] = value;
    } else if (key === "message") {
      data.message += "\n" + value; // appendProperty: later message groups are appended
    }
  }
}

function problem(matcher, data) {
  if (!data.file || !data.line || !data.message) {
    return null;
  }
  return { matcher: matcher.name, file: data.file, line: Number.parseInt(data.line, 10), message: data.message };
}

function handle(matcher, lines, start) {
  let data = {};
  for (const [index, pattern] of matcher.patterns.entries()) {
    const match = pattern.regexp.exec(lines[start + index]);
    if (!match) {
      return { problem: null, loop: false };
    }
    if (pattern.loop && index === matcher.patterns.length - 1) {
      matcher.data = structuredClone(data);
      data = structuredClone(data);
    }
    fill(data, pattern, match);
  }
  const loop = Boolean(matcher.patterns.at(-1).loop);
  return { problem: problem(matcher, data), loop };
}

function next(matcher, line) {
  const pattern = matcher.patterns.at(-1);
  const match = pattern.regexp.exec(line);
  if (!match) {
    return null;
  }
  const data = structuredClone(matcher.data);
  fill(data, pattern, match);
  return problem(matcher, data);
}

/** The problems VS Code reports for `text` with the named matchers, as a task lists them. */
export function collect(contributed, names, text) {
  const matchers = names.map((name) => {
    const found = contributed.find((matcher) => matcher.name === name);
    if (!found) {
      throw new Error(`no problem matcher named ${name}`);
    }
    return compile(found);
  });
  const byLength = new Map();
  for (const matcher of matchers) {
    byLength.set(matcher.patterns.length, [...(byLength.get(matcher.patterns.length) ?? []), matcher]);
  }
  const bufferLength = Math.max(1, ...byLength.keys());
  const problems = [];
  let buffer = [];
  let active = null;
  for (const line of text.split(/\r?\n/)) {
    if (active) {
      const found = next(active, line);
      if (found) {
        problems.push(found);
        continue;
      }
      buffer = [];
      active = null;
    }
    buffer.push(line);
    if (buffer.length > bufferLength) {
      buffer.shift();
    }
    search: for (let start = 0; start < buffer.length; start++) {
      for (const matcher of byLength.get(buffer.length - start) ?? []) {
        const result = handle(matcher, buffer, start);
        if (result.problem) {
          problems.push(result.problem);
          active = result.loop ? matcher : null;
          buffer = [];
          break search;
        }
      }
    }
  }
  return problems;
}
