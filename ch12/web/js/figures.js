// ch12/web/js/figures.js -- the pictures for a class (pictures/class/),
// drawn from the page's own schedule module (schedule.js) and network
// drawing (network_svg.js): the figures of Sections 12.1 to 12.3, 63's network
// at n = 8, 16 and 32, and what each COMMON TRAP does to the book's input.
// Each picture is SVG text; tools/draw_pictures.js writes them, and
// tools/render_png.py makes their PNGs. No DOM here.

import {
  bookSortInput, mergeSchedule, recursionTree, sortSchedule, splitSchedule, tracePasses,
} from "./schedule.js";
import { COLORS, esc, networkSvg } from "./network_svg.js";

const BITONIC = [2, 4, 6, 8, 9, 7, 5, 3];     // 58-61's input
const ARBITRARY = [5, 2, 8, 1, 9, 3, 7, 4];   // 62's input

// A network with the values that run through it, one comparator after another.
function traced(passes, n, input, options) {
  return networkSvg(passes, n, { ...tracePasses(passes, input), ...options });
}

// Pictures side by side under one title: each is an <svg> string.
function sideBySide(parts, { title, description }) {
  const size = (svg) => svg.match(/width="([\d.]+)" height="([\d.]+)"/).slice(1).map(Number);
  const sizes = parts.map(size);
  const gap = 16;
  const top = 34;
  const width = sizes.reduce((sum, [w]) => sum + w, 0) + gap * (parts.length + 1);
  const height = top + Math.max(...sizes.map(([, h]) => h)) + gap;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ` +
    `font-family="Helvetica, Arial, sans-serif" font-size="12" role="img" aria-labelledby="fig-title" aria-describedby="fig-desc">`,
  `<title id="fig-title">${esc(title)}</title>`, `<desc id="fig-desc">${esc(description)}</desc>`,
  `<rect x="0" y="0" width="${width}" height="${height}" fill="${COLORS.background}"/>`,
  `<text x="${gap}" y="22" font-size="16" font-weight="bold" fill="${COLORS.text}">${esc(title)}</text>`];
  let x = gap;
  parts.forEach((svg, i) => {
    // The inner picture, placed: its own <svg>, moved to (x, top), its ids made unique.
    const inner = svg.replace(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" /, `<svg x="${x}" y="${top}" `)
      .replace(/ role="img"/, ' role="presentation"');
    out.push(inner.trimEnd());
    x += sizes[i][0] + gap;
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}

// Where a trap's result differs from the right one: the wires to mark.
function damage(right, wrong) {
  return wrong.map((v, w) => (v !== right[w] ? w : -1)).filter((w) => w >= 0);
}

// ---- 12.3's recursion (62) as a tree ----------------------------------------------
export function recursionSvg(values, { id = "rec" } = {}) {
  const n = values.length;
  const nodes = recursionTree(values);
  const depth = Math.log2(n);
  const leafW = 58, levelH = 66, top = 62, left = 12;
  const width = left * 2 + n * leafW;
  const height = top + depth * levelH + 70;
  const cx = (node) => left + (node.lo + node.cnt / 2) * leafW;
  const cy = (node) => top + node.depth * levelH;
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ` +
    `font-family="Helvetica, Arial, sans-serif" font-size="12" role="img" aria-labelledby="${id}-title" aria-describedby="${id}-desc">`];
  out.push(`<title id="${id}-title">62's recursion on ${values.join(" ")}</title>`);
  out.push(`<desc id="${id}-desc">${esc(nodes.filter((d) => d.cnt > 1).map((d) =>
    `sort[${d.lo},${d.lo + d.cnt}) ${d.ascending ? "ascending" : "descending"}: ${d.before.join(" ")} becomes ${d.after.join(" ")}`).join("; "))}.</desc>`);
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="${COLORS.background}"/>`);
  out.push(`<text x="8" y="20" font-size="15" font-weight="bold" fill="${COLORS.text}">Section 12.3 (62): the recursion</text>`);
  out.push(`<text x="8" y="38" font-size="11" fill="${COLORS.label}">left child built ascending, right child descending; ` +
    "each node then merges in its own direction</text>");
  for (const node of nodes) {
    if (node.cnt === 1) continue;
    for (const child of nodes.filter((c) => c.depth === node.depth + 1 && c.lo >= node.lo && c.lo < node.lo + node.cnt)) {
      out.push(`<line x1="${cx(node)}" y1="${cy(node) + 20}" x2="${cx(child)}" y2="${cy(child) - 20}" stroke="${COLORS.wire}" stroke-width="1"/>`);
    }
  }
  for (const node of nodes) {
    const color = COLORS.direction[node.ascending ? 0 : 1];
    const w = Math.max(48, node.cnt * leafW - 10);
    const label = node.cnt === 1 ? String(node.after[0]) : `sort[${node.lo},${node.lo + node.cnt}) ${node.ascending ? "asc" : "desc"}`;
    out.push(`<rect x="${cx(node) - w / 2}" y="${cy(node) - 20}" width="${w}" height="40" rx="6" fill="${COLORS.background}" ` +
      `stroke="${node.cnt === 1 ? COLORS.wire : color}" stroke-width="${node.cnt === 1 ? 1 : 2}"/>`);
    out.push(`<text x="${cx(node)}" y="${cy(node) - (node.cnt === 1 ? -4 : 4)}" text-anchor="middle" fill="${COLORS.text}"` +
      `${node.cnt === 1 ? ' font-size="14"' : ""}>${esc(label)}</text>`);
    if (node.cnt > 1) {
      out.push(`<text x="${cx(node)}" y="${cy(node) + 13}" text-anchor="middle" font-weight="bold" fill="${color}">` +
        `${node.after.join(" ")}</text>`);
    }
  }
  const ky = top + depth * levelH + 40;
  out.push(`<text x="8" y="${ky}" font-size="11" fill="${COLORS.label}">bold: the node's values once it returns ` +
    "(blue: built ascending, orange: descending)</text>");
  out.push(`<text x="8" y="${ky + 16}" font-size="11" fill="${COLORS.label}">a node sort[lo, lo+k) is the block of k ` +
    "elements that stage k of the network merges</text>");
  out.push("</svg>");
  return out.join("\n") + "\n";
}

// ---- the pictures --------------------------------------------------------------------
// name -> { section, caption, program, draw() }: the index of pictures/class/.
export const CLASS_PICTURES = {
  "12-1_split.svg": {
    section: "12.1", program: "58, 59",
    caption: "One compare-exchange split on the book's bitonic input: four independent pairs (i, i + 4); " +
      "afterwards every left value is at most every right value.",
    draw: () => traced(splitSchedule(8), 8, BITONIC, {
      id: "split", title: "Section 12.1 (58, 59): one split, dist = 4, on 2 4 6 8 9 7 5 3",
      keyNotes: ["after it: left half 2 4 5 3 (max 5) <= right half 9 7 6 8 (min 6); both halves bitonic"],
    }),
  },
  "12-2_merge.svg": {
    section: "12.2", program: "60, 61",
    caption: "The merge of the book's bitonic input: three passes, dist = 4, 2, 1, n/2 pairs in each.",
    draw: () => traced(mergeSchedule(8), 8, BITONIC, {
      id: "merge", title: "Section 12.2 (60, 61): the merge, three passes, on 2 4 6 8 9 7 5 3",
      keyNotes: ["pass 2 works on two groups, {0,1,2,3} and {4,5,6,7}: (tid % (2*dist)) < dist picks tid 0, 1, 4, 5"],
    }),
  },
  "12-3_recursion_and_network.svg": {
    section: "12.3", program: "62, 63",
    caption: "62's recursion on its input 5 2 8 1 9 3 7 4, beside the network that 63's double loop runs on the " +
      "same values: each node of the tree is one block of one stage.",
    draw: () => sideBySide([recursionSvg(ARBITRARY), traced(sortSchedule(8), 8, ARBITRARY, {
      id: "rnet", title: "Section 12.3 (63): the same sort as a network",
      keyNotes: ["stage k=2: the four lowest nodes; k=4: the two in the middle; k=8: the root"],
    })], {
      title: "Section 12.3: the recursion (62) and the network (63) on 5 2 8 1 9 3 7 4",
      description: "Left: the recursion tree of bitonic_sort_cpu. Right: the network of the iterative double loop; " +
        "stage k merges the blocks that the tree's nodes of size k merge, in the same directions.",
    }),
  },
  "12-3_network_n8.svg": {
    section: "12.3", program: "63",
    caption: "63's network for n = 8 on a[i] = (i*13+5) mod 8: 6 passes.",
    draw: () => traced(sortSchedule(8), 8, bookSortInput(8), {
      id: "n8", title: "Section 12.3 (63): the network for n = 8, one column per (k, j) launch" }),
  },
  "12-3_network_n16.svg": {
    section: "12.3", program: "63",
    caption: "63's network for n = 16 on the book's input a[i] = (i*13+5) mod 16: 10 passes.",
    draw: () => traced(sortSchedule(16), 16, bookSortInput(16), {
      id: "n16", title: "Section 12.3 (63): the network for n = 16, one column per (k, j) launch" }),
  },
  "12-3_network_n32.svg": {
    section: "12.3", program: "63",
    caption: "63's network for n = 32 on a[i] = (i*13+5) mod 32: 15 passes.",
    draw: () => traced(sortSchedule(32), 32, bookSortInput(32), {
      id: "n32", title: "Section 12.3 (63): the network for n = 32, one column per (k, j) launch" }),
  },
  "trap_12-1_adjacent_pairs.svg": {
    section: "12.1", program: "58_trap_adjacent_pairs, 59_trap_adjacent_pairs",
    caption: "12.1's trap: adjacent pairs (2i, 2i+1) never cross the halves, so the 8 stays left and the 3 stays " +
      "right -- the half ordering is lost.",
    draw: () => trapFigure(splitSchedule(8), splitSchedule(8, { trap: true }), 8, BITONIC, {
      title: "Section 12.1's COMMON TRAP: adjacent pairs, on 2 4 6 8 9 7 5 3",
      right: "the book's split: i with i + 4", wrong: "the trap: 2i with 2i + 1 (58/59_trap_adjacent_pairs)",
      note: "no pair straddles the halves: left max 8 > right min 3",
    }),
  },
  "trap_12-2_first_group_only.svg": {
    section: "12.2", program: "61_trap_first_group_only",
    caption: "12.2's trap: tid < dist on every pass leaves out every group but the first from pass 2 on; " +
      "the result is not sorted.",
    draw: () => trapFigure(mergeSchedule(8), mergeSchedule(8, { trap: true }), 8, BITONIC, {
      title: "Section 12.2's COMMON TRAP: tid < dist on every pass, on 2 4 6 8 9 7 5 3",
      right: "the book's merge: (tid % (2*dist)) < dist", wrong: "the trap: tid < dist (61_trap_first_group_only)",
      note: "pass 2 never compares the group {4,5,6,7}",
    }),
  },
  "trap_12-3_no_pair_guard.svg": {
    section: "12.3", program: "62_trap_no_pair_guard, 63_trap_no_pair_guard --replay",
    caption: "12.3's trap: without if (l > i) each pair is visited twice; run by one thread, the second visit swaps " +
      "it straight back, and the network sorts the wrong way round (on a GPU the two visits race).",
    draw: () => trapFigure(sortSchedule(8), sortSchedule(8, { trap: true }), 8, ARBITRARY, {
      title: "Section 12.3's COMMON TRAP: no if (l > i), on 5 2 8 1 9 3 7 4 (one thread, as 62's trap runs it)",
      right: "the book's sort: one visit per pair", wrong: "the trap: each pair twice, i then l (62_trap_no_pair_guard)",
      note: "every compare-exchange reversed: 9 8 7 5 4 3 2 1",
    }),
  },
};

// A trap beside the right network, on the same input, its wrong values in red.
function trapFigure(rightPasses, wrongPasses, n, input, { title, right, wrong, note }) {
  const good = tracePasses(rightPasses, input);
  const bad = tracePasses(wrongPasses, input);
  const last = bad.values.length - 1;
  const marked = damage(good.values[good.values.length - 1], bad.values[last]);
  return sideBySide([
    networkSvg(rightPasses, n, { ...good, id: "right", title: right }),
    networkSvg(wrongPasses, n, { ...bad, id: "wrong", title: wrong, emphasis: [{ after: last, wires: marked }],
      keyNotes: [note] }),
  ], {
    title,
    description: `Left: ${right}, ending ${good.values[good.values.length - 1].join(" ")}. Right: ${wrong}, ending ` +
      `${bad.values[last].join(" ")}; the wires where it differs: ${marked.join(", ") || "none"}. ${note}.`,
  });
}

// The index of the folder (README.md), from the same table.
export function classIndex() {
  const rows = Object.entries(CLASS_PICTURES).map(([name, p]) => {
    const png = name.replace(/\.svg$/, ".png");
    return `| ${p.section} | [${name}](${name}) | [${png}](${png}) | ${p.program} | ${p.caption} |`;
  });
  return [
    "# Pictures for a class",
    "",
    "The figures a lecture on Chapter 12 needs, drawn from the page's own schedule module",
    "(`../../js/schedule.js`) and network drawing (`../../js/network_svg.js`) by",
    "`node ch12/web/tools/draw_pictures.js`; the PNGs (twice the SVG's size) by",
    "`python3 ch12/web/tools/render_png.py` in headless Chromium. The values are those the",
    "programs print. `web_pictures` draws every SVG again and fails on any difference, and",
    "fails when a PNG was made from another version of its SVG (`png.sha256`).",
    "",
    "| section | SVG | PNG | program | what it shows |",
    "|---------|-----|-----|---------|---------------|",
    ...rows,
    "",
    "Arrows: the head is on the wire that gets the larger value (blue: an ascending block,",
    "direction bit 0; orange: descending, bit 1). Red boxes: pairs that were swapped;",
    "red values: where a trap's result differs from the right one.",
    "",
  ].join("\n");
}
