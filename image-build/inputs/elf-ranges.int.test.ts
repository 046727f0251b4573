// The ELF range reader against readelf, on the Node.js binary the images carry.
import { describe, expect, it } from "vitest";
import { readDynamicSymbol, readLoadSegments } from "../../testing/readelf.ts";
import { readElfRanges } from "./elf-ranges.ts";
import { requireNodeBinary } from "./node.ts";

describe("readElfRanges on the pinned Node.js", () => {
  it("reads the loaded segments and the ICU data's place in the file as readelf does", async () => {
    const node = await requireNodeBinary();
    const { loaded, symbols } = await readElfRanges(node, /^icudt\d+_dat$/);
    expect(loaded).toEqual(await readLoadSegments(node));
    expect(symbols).toHaveLength(1);
    const [icu] = symbols;
    const [theirs] = await readDynamicSymbol(node, icu!.name);
    expect(icu!.size).toBe(theirs!.size);
    // Node.js's read-only data is mapped at its file offset plus 0x400000 (readelf -l).
    expect(icu!.offset).toBe(theirs!.value - 0x400000);
    expect(icu!.size).toBeGreaterThan(20 * 1024 * 1024);
  });
});
