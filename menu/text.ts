// Text for a console that may be a VT100 on a serial line: printable ASCII only, lines
// wrapped or cut to the screen's width, and the small formats the menu's screens share.
import { formatSizeShort } from "../common/size.ts";

/** Every character outside printable ASCII becomes "?", a tab two spaces: nothing reaches the terminal as a control sequence. */
export function printable(text: string): string {
  return text.replaceAll("\t", "  ").replace(/[^\x20-\x7e]/g, "?");
}

/** The line cut to `width` columns, "..." marking the cut. */
export function cut(line: string, width: number): string {
  if (line.length <= width) return line;
  if (width <= 3) return line.slice(0, Math.max(0, width));
  return `${line.slice(0, width - 3)}...`;
}

/**
 * The line broken at spaces into lines of at most `width` columns. An indented line's
 * continuations are indented two more, so a wrapped table row or list item reads as one.
 */
export function wrap(line: string, width: number): string[] {
  if (width < 8 || line.length <= width) return [cut(line, Math.max(0, width))];
  const lead = line.length - line.trimStart().length;
  const indent = " ".repeat(lead > 0 ? Math.min(lead + 2, width >> 1) : 0);
  const out: string[] = [];
  let rest = line;
  let prefix = "";
  while ((prefix + rest).length > width) {
    const room = width - prefix.length;
    let at = rest.lastIndexOf(" ", room);
    if (at <= 0) at = room;
    out.push((prefix + rest.slice(0, at)).trimEnd());
    rest = rest.slice(at).trimStart();
    prefix = indent;
  }
  if (rest !== "") out.push(prefix + rest);
  return out;
}

/** "[#####-----]" for `done` of `total`, `width` cells between the brackets. */
export function progressBar(done: number, total: number, width: number): string {
  const filled = total > 0 ? Math.min(width, Math.floor((done / total) * width)) : width;
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}

/** "45%" (whole percent, never 100 before the end). */
export function percent(done: number, total: number): string {
  if (total <= 0 || done >= total) return "100%";
  return `${Math.min(99, Math.floor((done / total) * 100))}%`;
}

/** Bytes per second from bytes and milliseconds, or "" while too little time has passed. */
export function rate(bytes: number, ms: number): string {
  if (ms < 100) return "";
  return `${formatSizeShort(Math.round((bytes * 1000) / ms))}/s`;
}

/** "2025-03-01T10:20:30.000Z" as "2025-03-01 10:20 UTC". */
export function utcMinute(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

/** The first letter in upper case: planner messages are phrases, the menu prints sentences. */
export function sentence(text: string): string {
  const s = text.trim();
  const first = s[0]?.toUpperCase() ?? "";
  const body = `${first}${s.slice(1)}`;
  return /[.!?]$/.test(body) ? body : `${body}.`;
}
