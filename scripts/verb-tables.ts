// `npx tsx scripts/verb-tables.ts`: the verb tables of README.md and docs/design.md from the verbs' own
// definitions (cli/verbs/*.ts): each verb's words and usage line as `liken-stick VERB --help`
// prints them, in the order `liken-stick --help` lists them. The "does" column stays as each
// page wrote it; a new verb gets its summary. cli/verb-tables.test.ts fails while a page
// disagrees with the code.
import { realpathSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { usage } from "../cli/args.ts";
import type { Verb } from "../cli/verb.ts";
import { VERBS } from "../cli/verbs.ts";
import { repoRoot } from "../common/repo-root.ts";
import { run } from "../tools/exec.ts";

/** Each page with a verb table, and the heading the table follows. */
export const VERB_TABLES = [
  { file: "README.md", heading: "## The command" },
  { file: "docs/design.md", heading: "## 2. The command line (contract)" },
] as const;

/** A verb as its table row's first cell gives it: its words, then its usage line. */
export function verbLine(verb: Verb): string {
  return [...verb.words, usage(verb)].filter((s) => s !== "").join(" ");
}

interface Table {
  readonly start: number;
  readonly end: number;
  readonly rows: readonly (readonly string[])[];
}

/** The first table after `heading`: its line range and its rows' cells, header and rule left out. */
export function verbTable(text: string, heading: string): Table {
  const lines = text.split("\n");
  const at = lines.indexOf(heading);
  if (at < 0) throw new Error(`no "${heading}" heading`);
  const start = lines.findIndex((l, i) => i > at && l.startsWith("| verb "));
  if (start < 0) throw new Error(`no verb table after "${heading}"`);
  let end = start;
  while (lines[end]?.startsWith("|")) end++;
  const rows = lines.slice(start + 2, end).map(cells);
  return { start, end, rows };
}

/** The verb a row's first cell names, as `liken-stick VERB` would find it. */
export function verbOfCell(cell: string): Verb | undefined {
  const words = cell.replace(/^`|`$/g, "").split(" ");
  return [...VERBS]
    .sort((a, b) => b.words.length - a.words.length)
    .find((v) => v.words.every((w, i) => words[i] === w));
}

/** The page with its verb table rewritten from the definitions. */
export function withVerbTable(text: string, heading: string): string {
  const table = verbTable(text, heading);
  const does = new Map(table.rows.map((r) => [verbOfCell(r[0] ?? ""), r[1] ?? ""]));
  const rows = VERBS.map((v) => {
    const line = `\`${verbLine(v).replaceAll("|", "\\|")}\``;
    return `| ${line} | ${does.get(v) ?? v.summary} |`;
  });
  const lines = text.split("\n");
  lines.splice(table.start, table.end - table.start, "| verb | does |", "| --- | --- |", ...rows);
  return lines.join("\n");
}

function cells(row: string): string[] {
  return row
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replaceAll("\\|", "|"));
}

// Run as a program, not when the test imports the functions above.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = repoRoot();
  for (const { file, heading } of VERB_TABLES) {
    const path = join(root, file);
    await writeFile(path, withVerbTable(await readFile(path, "utf8"), heading));
  }
  // biome pads the columns, as it keeps every table of the manual.
  await run("npx", ["biome", "format", "--write", ...VERB_TABLES.map((t) => t.file)], {
    cwd: root,
  });
  process.stdout.write(
    `The verb tables of ${VERB_TABLES.map((t) => t.file).join(" and ")} follow the verbs.\n`,
  );
}
