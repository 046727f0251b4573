// The screen as lines: the header, a rule, the screen's text (scrolled when it does not
// fit), a line that says where the scroll is, the entries, and the help line at the bottom.
// Pure: the same model always gives the same frame, exactly `rows` lines of printable ASCII,
// none longer than `cols - 1` (the last column stays free: no terminal wraps or scrolls).
import { bodyOf, type Entry, entriesOf, headerLines, helpOf, promptOf, SCROLL } from "./screens.ts";
import { cut, printable, wrap } from "./text.ts";
import type { Model } from "./types.ts";

export interface Frame {
  readonly lines: readonly string[];
  /** The row shown in reverse video: the selected entry. */
  readonly highlight?: number;
  /** Where the cursor rests: the selected entry, or the end of the typed name. */
  readonly cursor: { readonly row: number; readonly col: number };
}

/** How the screen's parts share the rows: what view and scrolling both need. */
export interface Geometry {
  readonly width: number;
  readonly header: readonly string[];
  readonly body: readonly string[];
  readonly bodyRows: number;
  /** The question above the entries. */
  readonly prompt: readonly string[];
  /** The first body line shown (the model's scroll, clamped). */
  readonly scroll: number;
  readonly maxScroll: number;
  readonly entries: readonly Entry[];
  readonly entryRows: number;
  /** The first entry shown. */
  readonly entryTop: number;
}

export function geometryOf(model: Model): Geometry {
  const width = Math.max(1, model.size.cols - 1);
  const header = [
    ...headerLines(model.data).flatMap((l) => wrap(printable(l), width)),
    "-".repeat(width),
  ];
  const body = bodyOf(model).flatMap((l) => wrap(printable(l), width));
  const entries = entriesOf(model);
  const prompt = promptOf(model.screen).flatMap((l) => wrap(printable(l), width));
  // Below the header: the body, one line for the scroll position, the prompt, the entries,
  // the help.
  const room = Math.max(0, model.size.rows - header.length - 1 - prompt.length - 1);
  const fits = body.length + entries.length <= room;
  const entryRows = fits
    ? entries.length
    : Math.min(entries.length, Math.max(Math.min(entries.length, 3), room - body.length), room);
  const bodyRows = fits ? body.length : Math.max(0, room - entryRows);
  const maxScroll = Math.max(0, body.length - bodyRows);
  const scroll = Math.min(Math.max(0, model.scroll), maxScroll);
  const n = entries.length;
  const entryTop =
    n > entryRows
      ? Math.min(Math.max(0, model.selected - Math.floor(entryRows / 2)), n - entryRows)
      : 0;
  return {
    width,
    header,
    body,
    bodyRows,
    prompt,
    scroll,
    maxScroll,
    entries,
    entryRows,
    entryTop,
  };
}

export function frameOf(model: Model): Frame {
  const g = geometryOf(model);
  const rows = model.size.rows;
  const out: string[] = [...g.header];
  out.push(...g.body.slice(g.scroll, g.scroll + g.bodyRows));
  out.push(cut(positionLine(g), g.width));
  out.push(...g.prompt);
  const entriesStart = out.length;
  const shown = g.entries.slice(g.entryTop, g.entryTop + g.entryRows);
  shown.forEach((e, i) => {
    const selected = g.entryTop + i === model.selected;
    out.push(cut(`${selected ? ">" : " "} ${printable(e.label)}`, g.width));
  });
  while (out.length < rows - 1) out.push("");
  const help = helpOf(model.screen);
  if (g.maxScroll > 0) help.push(SCROLL);
  const lines = [...out.slice(0, Math.max(0, rows - 1)), cut(help.join("   "), g.width)].slice(
    0,
    rows,
  );
  const selectedRow = entriesStart + model.selected - g.entryTop;
  const highlight =
    g.entries.length > 0 && selectedRow >= entriesStart && selectedRow < rows - 1
      ? selectedRow
      : undefined;
  return {
    lines,
    ...(highlight !== undefined ? { highlight } : {}),
    cursor: cursorOf(model, g, lines, highlight),
  };
}

// Where the text is: blank when everything shows.
function positionLine(g: Geometry): string {
  const parts: string[] = [];
  if (g.maxScroll > 0) {
    const last = Math.min(g.body.length, g.scroll + g.bodyRows);
    parts.push(`-- lines ${g.scroll + 1}-${last} of ${g.body.length}: PgUp/PgDn --`);
  }
  if (g.entries.length > g.entryRows) {
    const last = g.entryTop + g.entryRows;
    parts.push(`-- entries ${g.entryTop + 1}-${last} of ${g.entries.length} --`);
  }
  return parts.join("  ");
}

function cursorOf(
  model: Model,
  g: Geometry,
  lines: readonly string[],
  highlight: number | undefined,
): { row: number; col: number } {
  if (model.screen.kind === "type-name" || model.screen.kind === "type-cluster") {
    const field = model.screen.kind === "type-name" ? "Machine name: " : "Cluster name: ";
    const row = lines.findIndex((l) => l.startsWith(field));
    if (row >= 0) return { row, col: Math.min(g.width, (lines[row] ?? "").length - 1) };
  }
  return { row: highlight ?? Math.max(0, lines.length - 1), col: 0 };
}
