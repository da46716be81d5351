// ch12/web/js/replay_label.js -- how a replay's output is labelled: the one
// place that says so, for every program the page prints. The lines are those
// that the CUDA programs print with --replay (see their .replay.txt goldens
// in expected_output/); change them here and nowhere else.

export const REPLAY_FIRST_LINE =
  "[--replay: the book's CPU replay -- a host loop plays the kernel's threads; no GPU was used]";
export const REPLAY_LAST_LINES = [
  "[--replay: the checks above judged the host loop's result, on the CPU; no kernel ran]",
];

// A program's text, printed by the replay: the label first (and any closing lines last).
export function labelReplay(text) {
  return [REPLAY_FIRST_LINE, text.replace(/\n$/, ""), ...REPLAY_LAST_LINES].join("\n") + "\n";
}
