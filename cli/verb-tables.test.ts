// The manual's verb tables agree with the verbs: every verb, in help's order, with the
// usage line its --help prints. `npx tsx scripts/verb-tables.ts` rewrites them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../common/repo-root.ts";
import { VERB_TABLES, verbLine, verbTable } from "../scripts/verb-tables.ts";
import { verbHelp } from "./help.ts";
import { VERBS } from "./verbs.ts";

describe.each(VERB_TABLES)("the verb table of $file", ({ file, heading }) => {
  const table = verbTable(readFileSync(join(repoRoot(), file), "utf8"), heading);

  it("lists every verb with its usage line, as help does (npx tsx scripts/verb-tables.ts mends it)", () => {
    expect(table.rows.map((r) => (r[0] ?? "").replace(/^`|`$/g, ""))).toEqual(VERBS.map(verbLine));
  });
});

describe("verbLine", () => {
  it("is the line --help prints after `liken-stick`", () => {
    for (const v of VERBS)
      expect(verbHelp(v).split("\n")[0]).toBe(`Usage: liken-stick ${verbLine(v)}`.trimEnd());
  });
});
