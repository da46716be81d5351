// ch12/web/js/network_svg.js -- a sorting network as SVG text, drawn from a
// schedule of schedule.js: one horizontal wire per element (element 0 at the
// top), one comparator per (pass, pair) -- per invocation, in fact, so a trap
// that compares a pair twice shows two -- with an arrow whose head is on the
// wire that receives the larger value: down in an ascending block
// (direction bit 0, blue), up in a descending one (direction bit 1, orange).
// Stages sit on bands of alternating shade. Optionally the values on every
// wire before the first pass and after each pass, and the comparators that
// swapped. A string, no DOM: the page puts it in the document, and
// tools/draw_pictures.js writes it to a file.

const COLOR = ["#1f5fbf", "#d9730d"];  // direction bit 0 (ascending), 1 (descending)
const SWAP = "#c62828";

// options:
//   values   rows[0] = the input, rows[p] = the values after pass p (or null)
//   swapped  rows of what each invocation did (2 = swapped), as the kernels record it (or null)
//   title    a line above the drawing
//   id       prefix of the ids in the drawing (value labels)
export function networkSvg(passes, n, { values = null, swapped = null, title = "", id = "net" } = {}) {
  const dy = n <= 8 ? 30 : n <= 16 ? 24 : 17;
  const cw = n <= 16 ? 13 : 10;             // one sub-column of comparators
  const vw = values ? (n <= 16 ? 24 : 22) : 10;  // the values column after each pass
  const left = 34 + (values ? vw : 0);
  const top = title ? 62 : 44;
  const font = n <= 16 ? 12 : 10;
  const y = (w) => top + w * dy;

  // Place each pass's comparators in sub-columns so that none overlap.
  let x = left + 8;
  const layout = passes.map((pass) => {
    const columns = [];
    const placed = pass.comparators.map((c) => {
      let col = columns.findIndex((used) => used.every(([lo, hi]) => c.hi < lo || c.lo > hi));
      if (col < 0) col = columns.push([]) - 1;
      columns[col].push([c.lo, c.hi]);
      return { c, col };
    });
    const x0 = x;
    const width = Math.max(1, columns.length) * cw;
    x += width + vw + 4;
    return { pass, x0, width, placed, valueX: x0 + width + vw / 2 + 2 };
  });
  const wireEnd = x + 2;
  const right = Math.max(x + 10, 480);
  const bottom = y(n - 1) + 44;
  const height = bottom + (swapped ? 48 : 34);

  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="network" viewBox="0 0 ${right} ${height}" ` +
    `width="${right}" height="${height}" font-family="Helvetica, Arial, sans-serif" font-size="${font}" ` +
    `data-n="${n}" data-passes="${passes.length}">`);
  out.push(`<rect x="0" y="0" width="${right}" height="${height}" fill="#ffffff"/>`);
  if (title) out.push(`<text x="8" y="20" font-size="${font + 3}" font-weight="bold" fill="#222">${esc(title)}</text>`);

  // Stage bands, and their labels.
  const stages = [];
  layout.forEach((l) => {
    const last = stages[stages.length - 1];
    if (last && last.stage === l.pass.stage) last.x1 = l.x0 + l.width + vw;
    else stages.push({ stage: l.pass.stage, label: l.pass.stageLabel, x0: l.x0 - 4, x1: l.x0 + l.width + vw });
  });
  stages.forEach((s, index) => {
    out.push(`<rect class="stage" x="${s.x0}" y="${top - 26}" width="${s.x1 - s.x0}" height="${y(n - 1) - top + 46}" ` +
      `fill="${index % 2 ? "#fbf3e6" : "#eaf1fb"}"/>`);
    out.push(`<text x="${(s.x0 + s.x1) / 2}" y="${top - 12}" text-anchor="middle" fill="#333">${esc(s.label)}</text>`);
  });

  // Wires, with their index.
  for (let w = 0; w < n; w++) {
    out.push(`<line class="wire" x1="${left - 4}" y1="${y(w)}" x2="${wireEnd}" y2="${y(w)}" stroke="#9aa0a6" stroke-width="1"/>`);
    out.push(`<text x="${left - 10 - (values ? vw : 0)}" y="${y(w) + font / 3}" text-anchor="end" fill="#666">${w}</text>`);
  }

  // The comparators, pass by pass.
  layout.forEach(({ pass, x0, placed }, p) => {
    out.push(`<g class="pass" data-pass="${p + 1}">`);
    out.push(`<text x="${x0 + (layout[p].width) / 2}" y="${y(n - 1) + 30}" text-anchor="middle" fill="#333" ` +
      `font-size="${font - 1}">${esc(pass.j !== undefined ? `j=${pass.j}` : `dist=${pass.dist}`)}</text>`);
    for (const { c, col } of placed) {
      const cx = x0 + col * cw + cw / 2;
      const didSwap = swapped ? swapped[p][c.thread] === 2 : false;
      const color = COLOR[c.dirBit];
      const head = y(c.maxTo);
      const dir = c.maxTo === c.hi ? 1 : -1;  // the arrow points down (1) or up (-1)
      const other = c.maxTo === c.hi ? y(c.lo) : y(c.hi);
      out.push(`<g class="cmp${didSwap ? " swapped" : ""}" data-pass="${p + 1}" data-thread="${c.thread}" ` +
        `data-lo="${c.lo}" data-hi="${c.hi}" data-max="${c.maxTo}" data-dir="${c.dirBit}" stroke="${color}" fill="${color}">`);
      if (didSwap) {  // a red halo under the comparator: this pair was swapped
        out.push(`<line class="halo" x1="${cx}" y1="${y(c.lo) - 5}" x2="${cx}" y2="${y(c.hi) + 5}" stroke="${SWAP}" ` +
          `stroke-opacity="0.35" stroke-width="8" stroke-linecap="round"/>`);
      }
      out.push(`<line x1="${cx}" y1="${other}" x2="${cx}" y2="${head - dir * 7}" stroke-width="2"/>`);
      out.push(`<circle cx="${cx}" cy="${other}" r="3"/>`);
      out.push(`<polygon points="${cx - 4.5},${head - dir * 9} ${cx + 4.5},${head - dir * 9} ${cx},${head - dir * 1}" stroke="none"/>`);
      out.push("</g>");
    }
    out.push("</g>");
  });

  // The values: before the first pass, and after each.
  if (values) {
    const columnX = [left - vw / 2 - 2, ...layout.map((l) => l.valueX)];
    values.forEach((row, c) => {
      out.push(`<g class="values" data-after="${c}">`);
      row.forEach((v, w) => {
        out.push(`<text id="${id}-v-${c}-${w}" x="${columnX[c]}" y="${y(w) + font / 3}" text-anchor="middle" ` +
          `fill="#111" stroke="#ffffff" stroke-width="3" paint-order="stroke">${esc(String(v))}</text>`);
      });
      out.push("</g>");
    });
  }

  // The key.
  const ky = bottom + 8;
  out.push(`<g font-size="${font - 1}" fill="#333">`);
  out.push(`<polygon points="10,${ky - 8} 19,${ky - 8} 14.5,${ky}" fill="${COLOR[0]}"/>`);
  out.push(`<text x="24" y="${ky}">ascending block (direction bit 0): the larger value goes down</text>`);
  out.push(`<polygon points="10,${ky + 14} 19,${ky + 14} 14.5,${ky + 6}" fill="${COLOR[1]}"/>`);
  out.push(`<text x="24" y="${ky + 14}">descending block (direction bit 1): the larger value goes up</text>`);
  if (swapped) {
    out.push(`<line x1="14.5" y1="${ky + 18}" x2="14.5" y2="${ky + 30}" stroke="${SWAP}" stroke-opacity="0.35" ` +
      `stroke-width="8" stroke-linecap="round"/>`);
    out.push(`<text x="24" y="${ky + 28}">red halo: the pair was swapped</text>`);
  }
  out.push("</g>");
  out.push("</svg>");
  return out.join("\n") + "\n";
}

function esc(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
