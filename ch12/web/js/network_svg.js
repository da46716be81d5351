// ch12/web/js/network_svg.js -- a sorting network as SVG text, drawn from a
// schedule of schedule.js: one horizontal wire per element (element 0 at the
// top), one comparator per (pass, pair) -- per invocation, in fact, so a trap
// that compares a pair twice shows two -- with an arrow whose head is on the
// wire that receives the larger value: down in an ascending block
// (direction bit 0, blue), up in a descending one (direction bit 1, orange).
// Stages sit on bands of alternating grey. Optionally the values on every
// wire before the first pass and after each pass, and the comparators that
// swapped (a red box). A string, no DOM: the page puts it in the document,
// and tools/draw_pictures.js writes it to a file.
//
// The colours are presentation attributes, so a picture file stands alone,
// and every mark has a class, so the page's style sheet can recolour it (its
// dark scheme). Each colour keeps a contrast of at least 3:1 against every
// background it is drawn on, and text 4.5:1 (the test web_contrast measures
// the page's).

export const COLORS = {
  background: "#ffffff",
  bands: ["#eeeeee", "#f7f7f7"],  // stages, alternating: greys, never a direction's colour
  direction: ["#1f5fbf", "#b04f00"],  // direction bit 0 (ascending), 1 (descending)
  swap: "#c62828",
  wire: "#7a7a7a",
  text: "#111111",
  label: "#444444",
};

// options:
//   values       rows[0] = the input, rows[p] = the values after pass p; a
//                row may be null (not known yet: nothing drawn for it)
//   swapped      rows of what each invocation did (2 = swapped), as the kernels record it (or null)
//   title        a line above the drawing (and the picture's <title>)
//   description  the picture's <desc>: what it shows, in words
//   id           prefix of the ids in the drawing (value labels, title, desc)
//   interactive  for the page: role "group" (its comparators take focus), the
//                decoration hidden from screen readers; otherwise role "img"
//   emphasis     [{ after: c, wires: [w, ..] }]: values drawn in red, boxed
//   keyNotes     more lines for the key under the drawing
export function networkSvg(passes, n, { values = null, swapped = null, title = "", description = "", id = "net",
  interactive = false, emphasis = [], keyNotes = [] } = {}) {
  const dy = n <= 8 ? 30 : n <= 16 ? 24 : 17;
  const cw = n <= 16 ? 13 : 10;             // one sub-column of comparators
  const font = n <= 16 ? 12 : 10;
  const widest = values ? Math.max(1, ...values.filter(Boolean).flat().map((v) => String(v).length)) : 0;
  const vw = values ? Math.max(n <= 16 ? 24 : 22, Math.ceil(widest * font * 0.62) + 8) : 10;  // a values column
  const left = 34 + (values ? vw : 0);
  const top = title ? 62 : 44;
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
  const directions = [...new Set(passes.flatMap((p) => p.comparators.map((c) => c.dirBit)))].sort();
  const keyLines = directions.length + (swapped ? 1 : 0) + (emphasis.length ? 1 : 0) + keyNotes.length;
  const right = Math.max(x + 10, 480);
  const bottom = y(n - 1) + 44;
  const height = bottom + 8 + keyLines * 14 + 8;

  const out = [];
  const role = interactive ? "group" : "img";
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="network" viewBox="0 0 ${right} ${height}" ` +
    `width="${right}" height="${height}" font-family="Helvetica, Arial, sans-serif" font-size="${font}" ` +
    `role="${role}" aria-labelledby="${id}-title" aria-describedby="${id}-desc" data-n="${n}" data-passes="${passes.length}">`);
  out.push(`<title id="${id}-title">${esc(title || `a bitonic network for n = ${n}`)}</title>`);
  out.push(`<desc id="${id}-desc">${esc(description || describe(passes, n, values))}</desc>`);
  const hidden = ' aria-hidden="true"';
  out.push(`<rect class="bg" x="0" y="0" width="${right}" height="${height}" fill="${COLORS.background}"${hidden}/>`);
  if (title) {
    out.push(`<text class="title" x="8" y="20" font-size="${font + 3}" font-weight="bold" fill="${COLORS.text}"${hidden}>` +
      `${esc(title)}</text>`);
  }

  // Stage bands, and their labels; the page lights the current pass's column.
  const stages = [];
  layout.forEach((l) => {
    const last = stages[stages.length - 1];
    if (last && last.stage === l.pass.stage) last.x1 = l.x0 + l.width + vw;
    else stages.push({ stage: l.pass.stage, label: l.pass.stageLabel, x0: l.x0 - 4, x1: l.x0 + l.width + vw });
  });
  out.push(`<g class="bands"${hidden}>`);
  stages.forEach((s, index) => {
    out.push(`<rect class="stage stage-${index % 2}" x="${s.x0}" y="${top - 26}" width="${s.x1 - s.x0}" ` +
      `height="${y(n - 1) - top + 46}" fill="${COLORS.bands[index % 2]}"/>`);
    out.push(`<text class="label" x="${(s.x0 + s.x1) / 2}" y="${top - 12}" text-anchor="middle" fill="${COLORS.label}">` +
      `${esc(s.label)}</text>`);
  });
  layout.forEach(({ x0, width }, p) => {
    out.push(`<rect class="lit" data-pass="${p + 1}" x="${x0 - 3}" y="${top - 8}" width="${width + 6}" ` +
      `height="${y(n - 1) - top + 16}" fill="none"/>`);
  });
  out.push("</g>");

  // Wires, with their index.
  out.push(`<g class="wires"${hidden}>`);
  for (let w = 0; w < n; w++) {
    out.push(`<line class="wire" x1="${left - 4}" y1="${y(w)}" x2="${wireEnd}" y2="${y(w)}" stroke="${COLORS.wire}" stroke-width="1"/>`);
    out.push(`<text class="label" x="${left - 10 - (values ? vw : 0)}" y="${y(w) + font / 3}" text-anchor="end" ` +
      `fill="${COLORS.label}">${w}</text>`);
  }
  out.push("</g>");

  // The comparators, pass by pass.
  layout.forEach(({ pass, x0, placed, width }, p) => {
    out.push(`<g class="pass" data-pass="${p + 1}">`);
    out.push(`<text class="label" x="${x0 + width / 2}" y="${y(n - 1) + 30}" text-anchor="middle" fill="${COLORS.label}" ` +
      `font-size="${font - 1}"${hidden}>${esc(pass.j !== undefined ? `j=${pass.j}` : pass.adjacent ? "2i, 2i+1" : `dist=${pass.dist}`)}</text>`);
    for (const { c, col } of placed) {
      const cx = x0 + col * cw + cw / 2;
      const didSwap = swapped ? swapped[p][c.thread] === 2 : false;
      const color = COLORS.direction[c.dirBit];
      const head = y(c.maxTo);
      const dir = c.maxTo === c.hi ? 1 : -1;  // the arrow points down (1) or up (-1)
      const other = c.maxTo === c.hi ? y(c.lo) : y(c.hi);
      out.push(`<g class="cmp dir-${c.dirBit}${didSwap ? " swapped" : ""}" data-pass="${p + 1}" data-thread="${c.thread}" ` +
        `data-lo="${c.lo}" data-hi="${c.hi}" data-max="${c.maxTo}" data-dir="${c.dirBit}" stroke="${color}" fill="${color}">`);
      if (didSwap) {  // a red box around the comparator: this pair was swapped
        out.push(`<rect class="swapbox" x="${cx - 5.5}" y="${y(c.lo) - 6}" width="11" height="${y(c.hi) - y(c.lo) + 12}" ` +
          `rx="4" fill="none" stroke="${COLORS.swap}" stroke-width="1.5"/>`);
      }
      out.push(`<line class="stem" x1="${cx}" y1="${other}" x2="${cx}" y2="${head - dir * 7}" stroke-width="2"/>`);
      if (interactive) {  // an invisible, wider line to point at (a dashed line has gaps)
        out.push(`<line class="hit" x1="${cx}" y1="${y(c.lo)}" x2="${cx}" y2="${y(c.hi)}" stroke="transparent" stroke-width="${cw - 1}"/>`);
      }
      out.push(`<circle class="tail" cx="${cx}" cy="${other}" r="3"/>`);
      out.push(`<polygon class="head" points="${cx - 4.5},${head - dir * 9} ${cx + 4.5},${head - dir * 9} ${cx},${head - dir * 1}" stroke="none"/>`);
      out.push("</g>");
    }
    out.push("</g>");
  });

  // The values: before the first pass, and after each.
  if (values) {
    const columnX = [left - vw / 2 - 2, ...layout.map((l) => l.valueX)];
    const emphasised = new Set(emphasis.flatMap((e) => e.wires.map((w) => `${e.after}:${w}`)));
    values.forEach((row, c) => {
      if (!row) return;
      out.push(`<g class="values" data-after="${c}"${hidden}>`);
      row.forEach((v, w) => {
        const loud = emphasised.has(`${c}:${w}`);
        if (loud) {
          out.push(`<rect class="emphasis" x="${columnX[c] - vw / 2 + 1}" y="${y(w) - dy / 2 + 2}" width="${vw - 2}" ` +
            `height="${dy - 4}" rx="3" fill="none" stroke="${COLORS.swap}" stroke-width="1.5"/>`);
        }
        out.push(`<text id="${id}-v-${c}-${w}" class="value${loud ? " loud" : ""}" x="${columnX[c]}" y="${y(w) + font / 3}" ` +
          `text-anchor="middle" fill="${loud ? COLORS.swap : COLORS.text}"${loud ? ' font-weight="bold"' : ""}>${esc(String(v))}</text>`);
      });
      out.push("</g>");
    });
  }

  // The key: only what the drawing shows.
  let ky = bottom + 8;
  out.push(`<g class="key" font-size="${font - 1}"${hidden}>`);
  const words = ["ascending block (direction bit 0): the larger value goes down",
    "descending block (direction bit 1): the larger value goes up"];
  for (const d of directions) {
    out.push(`<polygon class="head dir-${d}" points="10,${ky - 8} 19,${ky - 8} 14.5,${ky}" fill="${COLORS.direction[d]}"/>`);
    out.push(`<text class="label" x="24" y="${ky}" fill="${COLORS.label}">${words[d]}</text>`);
    ky += 14;
  }
  if (swapped) {
    out.push(`<rect class="swapbox" x="10" y="${ky - 10}" width="9" height="12" rx="3" fill="none" stroke="${COLORS.swap}" stroke-width="1.5"/>`);
    out.push(`<text class="label" x="24" y="${ky}" fill="${COLORS.label}">red box: the pair was swapped</text>`);
    ky += 14;
  }
  if (emphasis.length) {
    out.push(`<text class="label" x="24" y="${ky}" fill="${COLORS.label}">red values: where the result is wrong</text>`);
    ky += 14;
  }
  for (const note of keyNotes) {
    out.push(`<text class="label" x="10" y="${ky}" fill="${COLORS.label}">${esc(note)}</text>`);
    ky += 14;
  }
  out.push("</g>");
  out.push("</svg>");
  return out.join("\n") + "\n";
}

// The picture in words, for its <desc>: the passes and their pairs.
function describe(passes, n, values) {
  const parts = [`A sorting network on ${n} wires, ${passes.length} pass${passes.length === 1 ? "" : "es"}.`];
  passes.forEach((pass, p) => {
    const pairs = pass.comparators.map((c) => `${c.lo}-${c.hi}${c.dirBit ? " descending" : ""}`).join(", ");
    parts.push(`Pass ${p + 1} (${pass.label}): ${pairs}.`);
  });
  if (values && values[0]) parts.push(`Input: ${values[0].join(" ")}.`);
  const last = values && values[values.length - 1];
  if (last && values.length > 1) parts.push(`After the last pass: ${last.join(" ")}.`);
  return parts.join(" ");
}

export function esc(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
