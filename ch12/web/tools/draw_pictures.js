#!/usr/bin/env node
// ch12/web/tools/draw_pictures.js -- draws the pictures from the page's own
// modules (js/schedule.js, js/network_svg.js, js/figures.js):
//   pictures/network_n16.svg   63's network for n = 16, the book's input moving through it (the README's)
//   pictures/merge_61.svg      61's merge passes on the book's bitonic input (the README's)
//   pictures/class/*.svg       the figures for a class, and their index, pictures/class/README.md
//
//   node ch12/web/tools/draw_pictures.js [--out DIR]     (default: ch12/web/pictures)
//
// The values are the comparators applied on the CPU (schedule.js's
// tracePasses): the same numbers the programs print. The test `web_pictures`
// draws them again and fails if the committed files differ. The PNGs of the
// class pictures are made from the SVGs by tools/render_png.py.
//
// This tool writes no file itself: it hands every picture, with its path, to
// the companion's one write rule (common/write_policy.py write), which checks
// every path first -- no file git tracks but the pictures this tool draws for
// its own checkout, no golden, nothing through a link to one -- and writes
// none when one is refused (exit 2), or each through a temporary file.
// The Python is $CH12_PYTHON when set, else python3 on PATH.

import { spawnSync } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bookSortInput, mergeSchedule, sortSchedule, tracePasses } from "../js/schedule.js";
import { networkSvg } from "../js/network_svg.js";
import { CLASS_PICTURES, classIndex } from "../js/figures.js";

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

const pictures = {
  "network_n16.svg": () => {
    const passes = sortSchedule(16);
    return networkSvg(passes, 16, { ...tracePasses(passes, bookSortInput(16)),
      title: "Section 12.3 (63): the bitonic network for n = 16, one column per (k, j) launch" });
  },
  "merge_61.svg": () => {
    const passes = mergeSchedule(8);
    return networkSvg(passes, 8, { ...tracePasses(passes, [2, 4, 6, 8, 9, 7, 5, 3]),
      title: "Section 12.2 (61): the merge, three passes in one block" });
  },
};
for (const [name, picture] of Object.entries(CLASS_PICTURES)) pictures[`class/${name}`] = picture.draw;
pictures["class/README.md"] = classIndex;

try {
  mkdirSync(join(out, "class"), { recursive: true });
} catch (e) {
  badArgument(`--out: cannot make the folder ${join(out, "class")}: ${e.message}`);
}
const files = Object.entries(pictures).map(([name, draw]) => [join(out, name), draw()]);
const python = process.env.CH12_PYTHON || "python3";
const policy = join(here, "..", "..", "..", "common", "write_policy.py");
const written = spawnSync(python, ["-S", policy, "write", "--regenerates", "draw_pictures.js"],
  { input: JSON.stringify(files), stdio: ["pipe", "inherit", "inherit"] });
if (written.error) {
  process.stderr.write(`draw_pictures.js: cannot run ${python} for the write rule: ${written.error.message}\n`);
  process.exit(1);
}
if (written.status !== 0) process.exit(written.status === null ? 1 : written.status);
for (const [path] of files) process.stdout.write(`wrote ${path}\n`);
