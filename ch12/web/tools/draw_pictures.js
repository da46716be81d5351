#!/usr/bin/env node
// ch12/web/tools/draw_pictures.js -- draws the README's pictures from the
// page's own modules (js/schedule.js, js/network_svg.js):
//   pictures/network_n16.svg   63's network for n = 16, the book's input moving through it
//   pictures/merge_61.svg      61's merge passes on the book's bitonic input
//
//   node ch12/web/tools/draw_pictures.js [--out DIR]     (default: ch12/web/pictures)
//
// The values are the comparators applied on the CPU (schedule.js's
// applyPass): the same numbers the programs print. The test `web_pictures`
// draws them again and fails if the committed files differ.

import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { applyPass, mergeSchedule, sortSchedule } from "../js/schedule.js";
import { networkSvg } from "../js/network_svg.js";

const here = dirname(fileURLToPath(import.meta.url));
const usage = "usage: draw_pictures.js [--out DIR]\n";
const args = process.argv.slice(2);
let out = join(here, "..", "pictures");
if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
  process.stdout.write(usage);
  process.exit(0);
} else if (args.length === 2 && args[0] === "--out") {
  if (args[1] === "") badArgument("--out wants a folder, not an empty string");
  out = resolve(args[1]);
  let kind = null;
  try {
    kind = statSync(out);
  } catch (e) {
    if (e.code !== "ENOENT") badArgument(`--out ${args[1]}: ${e.message}`);
  }
  if (kind && !kind.isDirectory()) badArgument(`--out ${args[1]}: not a folder`);
} else if (args.length !== 0) {
  badArgument(`unexpected argument '${args[0]}'`);
}

// A bad command line: the usage and one line on stderr, exit 2.
function badArgument(problem) {
  process.stderr.write(`draw_pictures.js: ${problem}\n${usage}`);
  process.exit(2);
}

// Runs the passes on the CPU: the rows of values, and what each comparator did.
function trace(passes, input) {
  const values = [input];
  const did = [];
  for (const pass of passes) {
    const before = values[values.length - 1];
    const after = applyPass(before, pass);
    const row = new Array(input.length).fill(0);
    for (const c of pass.comparators) row[c.thread] = before[c.lo] !== after[c.lo] ? 2 : 1;
    values.push(after);
    did.push(row);
  }
  return { values, swapped: did };
}

const pictures = {
  "network_n16.svg": () => {
    const passes = sortSchedule(16);
    const input = Array.from({ length: 16 }, (_, i) => (i * 13 + 5) % 16);
    return networkSvg(passes, 16, { ...trace(passes, input),
      title: "Section 12.3 (63): the bitonic network for n = 16, one column per (k, j) launch" });
  },
  "merge_61.svg": () => {
    const passes = mergeSchedule(8);
    return networkSvg(passes, 8, { ...trace(passes, [2, 4, 6, 8, 9, 7, 5, 3]),
      title: "Section 12.2 (61): the merge, three passes in one block" });
  },
};

try {
  mkdirSync(out, { recursive: true });
} catch (e) {
  badArgument(`--out: cannot make the folder ${out}: ${e.message}`);
}
for (const [name, draw] of Object.entries(pictures)) {
  writeFileSync(join(out, name), draw());
  process.stdout.write(`wrote ${join(out, name)}\n`);
}
