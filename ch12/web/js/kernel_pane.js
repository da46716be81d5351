// ch12/web/js/kernel_pane.js -- which lines of the kernel a pass runs: the
// WGSL port (wgsl/*.wgsl) and the CUDA kernel of the .cu file
// (cuda_kernels.js), each with the lines that decide this pass's pairs and
// directions lit, and a note that puts the pass's numbers into them (and one
// invocation's, when a comparator is pointed at or has focus). No DOM here:
// main.js and network_panel.js draw what this returns.

import { CUDA_KERNELS } from "./cuda_kernels.js";

// Per program (and trap): the WGSL file, the CUDA kernel, and the lines lit
// for every pass, found by their text.
export const KERNEL_LINES = {
  "59": {
    wgsl: "59_split.wgsl", cuda: "59",
    wgslLines: [/let hi = g_a\[i \+ args\.dist\];/, /let should_swap = /],
    cudaLines: [/int hi = g_a\[i \+ dist\];/, /bool should_swap = /],
  },
  "61": {
    wgsl: "61_merge.wgsl", cuda: "61",
    wgslLines: [/for \(var dist = /, /var is_active = \(tid % \(2u \* dist\)\) < dist;/],
    cudaLines: [/for \(int dist = /, /if \(\(tid % \(2 \* dist\)\) < dist\) \{/],
  },
  "61-trap": {
    wgsl: "61_merge.wgsl", cuda: "61-trap",
    wgslLines: [/for \(var dist = /, /is_active = tid < dist;/],
    cudaLines: [/for \(int dist = /, /if \(tid < dist\) \{/],
  },
  "63": {
    wgsl: "63_sort_pass.wgsl", cuda: "63",
    wgslLines: [/let l = i \^ args\.j;/, /if \(l > i \|\| TRAP_NO_PAIR_GUARD\)/, /let ascending = \(i & args\.k\) == 0u;/],
    cudaLines: [/int l = i \^ j;/, /if \(l > i\) \{/, /bool ascending = \(\(i & k\) == 0\);/],
  },
  "63-trap": {
    wgsl: "63_sort_pass.wgsl", cuda: "63-trap",
    wgslLines: [/let l = i \^ args\.j;/, /if \(l > i \|\| TRAP_NO_PAIR_GUARD\)/, /let ascending = \(i & args\.k\) == 0u;/],
    cudaLines: [/int l = i \^ j;/, /THE TRAP/, /bool ascending = \(\(i & k\) == 0\);/],
  },
};

export function kernelKey(program, trap) {
  return trap && KERNEL_LINES[`${program}-trap`] ? `${program}-trap` : program;
}

export function cudaKernel(key) {
  const k = CUDA_KERNELS[KERNEL_LINES[key].cuda];
  return { file: k.file, name: k.kernel, lines: k.text.replace(/\n$/, "").split("\n") };
}

// The WGSL entry point and what follows it (the kernel function), from the file's text.
export function wgslKernel(source) {
  const lines = source.replace(/\n$/, "").split("\n");
  const start = lines.findIndex((line) => line.startsWith("@compute"));
  return start < 0 ? lines : lines.slice(start);
}

// The indices of the lines to light, one per pattern (-1 where none matches).
export function litLines(lines, patterns) {
  return patterns.map((re) => lines.findIndex((line) => re.test(line)));
}

// What the lit lines do in this pass (pass: a schedule.js pass; null for the
// input), and for invocation `thread` when one is pointed at.
export function passNote(program, trap, pass, thread = null) {
  if (!pass) return "The input: no pass has run yet, so no line of the kernel has either.";
  if (program === "59") {
    if (pass.adjacent) return "This pass: invocation i compares 2i and 2i + 1 (the trap's pairs).";
    const base = `This pass: dist = ${pass.dist}, so invocation i compares i and i + ${pass.dist}, ascending.`;
    return thread === null ? base : `${base} Invocation ${thread}: elements ${thread} and ${thread + pass.dist}.`;
  }
  if (program === "61") {
    const test = trap ? "tid < dist" : "(tid % (2 * dist)) < dist";
    const base = `This pass: the loop's dist = ${pass.dist}; invocation tid works when ${test}` +
      `${trap ? "" : ` (tid % ${2 * pass.dist} < ${pass.dist})`} and compares tid with tid + ${pass.dist}.`;
    if (thread === null) return base;
    const active = trap ? thread < pass.dist : thread % (2 * pass.dist) < pass.dist;
    return `${base} Invocation ${thread}: ${trap ? `${thread} < ${pass.dist}` : `${thread} % ${2 * pass.dist} = ${thread % (2 * pass.dist)} < ${pass.dist}`}` +
      `${active ? `, so it compares ${thread} and ${thread + pass.dist}.` : ": it sits out."}`;
  }
  const base = `This dispatch: k = ${pass.k}, j = ${pass.j}; invocation i pairs with l = i ^ ${pass.j}` +
    `${trap ? " and, with no guard, every invocation compares" : " and compares when l > i"}; ascending where (i & ${pass.k}) == 0.`;
  if (thread === null) return base;
  const l = thread ^ pass.j;
  const ascending = (thread & pass.k) === 0;
  return `${base} Invocation ${thread}: l = ${thread} ^ ${pass.j} = ${l}` +
    `${trap ? "" : l > thread ? `, ${l} > ${thread}: it compares` : `, not > ${thread}: it sits out`}; ` +
    `${thread} & ${pass.k} = ${thread & pass.k}, so ${ascending ? "ascending" : "descending"}.`;
}
