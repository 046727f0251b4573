// The installed disk's contract is spelled once (issue 40): each state-partition path in
// formats/state-partition.ts, the `liken-<name>` label rule in common/partition-labels.ts,
// and the stick's payload paths in formats/stick-payload.ts. A grep over the production
// code, so a path or a label typed out by hand elsewhere fails here before a reader has to
// search for the second spelling.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { productionFiles } from "../test/code-shape.ts";
import { STATE_FILES } from "./state-partition.ts";
import { PAYLOAD_MOUNT, STICK_PAYLOAD, STICK_RUN } from "./stick-payload.ts";

const ROOT = join(import.meta.dirname, "..");

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** A line that is a comment: TypeScript's, or the shell's in a template. */
const COMMENT = /^\s*(\/\/|\/?\*|#)/;

/** The files where `pattern` matches, each with its first matching line; comments too when asked. */
function spelledIn(pattern: RegExp, { inComments = true } = {}): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of productionFiles()) {
    const line = readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .find((l) => pattern.test(l) && (inComments || !COMMENT.test(l)));
    if (line !== undefined) found.set(file, line.trim());
  }
  return found;
}

describe("each state-partition path is spelled once", () => {
  for (const path of Object.values(STATE_FILES)) {
    // As a string, or the end of one (`${STATE}/identity.json`): comments name them freely.
    const literal = new RegExp(`["'\`/]${escaped(path)}["'\`]`);
    it(path, () => {
      expect([...spelledIn(literal).keys()]).toEqual(["formats/state-partition.ts"]);
    });
  }
});

describe("each path of the stick's payload is spelled once", () => {
  // The whole path, quoted or a bare shell word, or the start of a longer one; not the end
  // of a URL or of another path. Comments name them freely.
  const spelling = (path: string) => new RegExp(`(?<![\\w./}-])${escaped(path)}(?![\\w-])`);
  for (const path of [
    PAYLOAD_MOUNT,
    ...Object.values(STICK_PAYLOAD),
    ...Object.values(STICK_RUN),
  ]) {
    it(path, () => {
      const found = spelledIn(spelling(path), { inComments: false });
      expect([...found.keys()]).toEqual(["formats/stick-payload.ts"]);
    });
  }

  it("each payload file is under the mount point", () => {
    for (const path of Object.values(STICK_PAYLOAD))
      expect(path.startsWith(`${PAYLOAD_MOUNT}/`)).toBe(true);
  });
});

/**
 * Files that write `liken-` before a name and are not a partition label, or must emit the
 * label as text: each with why.
 */
const NOT_THE_LABEL_RULE: Readonly<Record<string, string>> = {
  "common/partition-labels.ts": "the rule's home",
  "formats/boot-entries.ts": "boot entry file names (entryFileName), not partition labels",
  "image-build/netboot/matchbox.ts": "a netboot profile's name, not a partition label",
  "image-build/netboot/tinkerbell.ts": "a netboot template's name, not a partition label",
  "image-build/release/init-script.ts":
    "the release's initramfs, busybox shell, finds a slot's partition by its label: it cannot call TypeScript",
};

describe("the partition label rule is spelled once", () => {
  // `liken-${...}` and the shell's `liken-$slot`; a system partition's label or the bare
  // prefix typed as a string.
  const patterns = [/liken-\$/, /["'`]liken-(esp|a|b|journal|state)?["'`]/];
  for (const pattern of patterns) {
    it(`${pattern} only where it is not the rule, or in its home`, () => {
      const outside = [...spelledIn(pattern)].filter(([file]) => !(file in NOT_THE_LABEL_RULE));
      expect(outside).toEqual([]);
    });
  }

  it("names no exception that no longer needs it", () => {
    const anywhere = new Set(patterns.flatMap((p) => [...spelledIn(p).keys()]));
    expect(Object.keys(NOT_THE_LABEL_RULE).filter((f) => !anywhere.has(f))).toEqual([]);
  });
});
