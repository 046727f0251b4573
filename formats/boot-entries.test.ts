// The ESP's entries as systemd-boot reads them: which entry it boots first. systemd-boot
// orders entries whose tries are used up last, then by sort-key A to Z, then by version
// newest first (systemd src/boot/efi/boot.c, config_entry_compare); the first one boots.
import { describe, expect, it } from "vitest";
import {
  type EntryRank,
  entryFileName,
  entryText,
  kernelOptions,
  loaderConf,
  type Slot,
  SORT_KEYS,
} from "./boot-entries.ts";
import { parseEntryName } from "./entry-name.ts";

const PARTUUID = "62B67372-F6F3-8ADD-9FBD-37C635F1CFF0";
const ROOT_HASH = "ab".repeat(32);
const ROOT = { partUuid: PARTUUID, verity: { rootHash: ROOT_HASH, dataBlocks: 1234 } };

interface LoaderEntry {
  readonly fileName: string;
  readonly sortKey: string | undefined;
  readonly version: string | undefined;
  readonly triesLeft: number | null;
}

/** An entry file as systemd-boot parses it: its keys, and the counter in its name. */
function loaderEntry(fileName: string, text: string): LoaderEntry {
  const keys = new Map(
    text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => {
        const [key = "", ...rest] = l.split(" ");
        return [key, rest.join(" ")] as const;
      }),
  );
  return {
    fileName,
    sortKey: keys.get("sort-key"),
    version: keys.get("version"),
    triesLeft: parseEntryName(fileName)?.triesLeft ?? null,
  };
}

function compareVersions(x = "", y = ""): number {
  const a = x.split(/[.-]/).map(Number);
  const b = y.split(/[.-]/).map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** systemd-boot 252's config_entry_compare, for entries that all carry a sort-key. */
function bootOrder(entries: readonly LoaderEntry[]): string[] {
  return [...entries]
    .sort(
      (x, y) =>
        Number(x.triesLeft === 0) - Number(y.triesLeft === 0) ||
        (x.sortKey ?? "").localeCompare(y.sortKey ?? "", "en") ||
        -compareVersions(x.version, y.version) ||
        -x.fileName.localeCompare(y.fileName),
    )
    .map((e) => e.fileName);
}

function entry(
  slot: Slot,
  version: string,
  rank: EntryRank,
  tries?: { left: number; done: number },
) {
  const fileName = entryFileName(slot, version, tries);
  return loaderEntry(fileName, entryText(slot, version, ROOT, rank));
}

describe("entryText", () => {
  it("writes a Boot Loader Specification entry with a version and a sort-key", () => {
    expect(entryText("b", "2.0.0", ROOT, "trial")).toBe(
      [
        "title liken 2.0.0 (slot b, trial)",
        "version 2.0.0",
        "sort-key liken-0-trial",
        "linux /liken/b/vmlinuz",
        "initrd /liken/b/initrd.img",
        `options root=PARTUUID=62b67372-f6f3-8add-9fbd-37c635f1cff0 ro liken.slot=b liken.verity=${ROOT_HASH}:1234 console=tty0 console=ttyS0,115200 panic=10`,
        "",
      ].join("\n"),
    );
    expect(entryText("a", "1.0.0", ROOT)).toContain(
      "title liken 1.0.0 (slot a)\nversion 1.0.0\nsort-key liken-1-proven\n",
    );
    expect(entryText("a", "1.0.0", ROOT, "previous")).toContain(
      "title liken 1.0.0 (slot a, previous)\nversion 1.0.0\nsort-key liken-2-previous\n",
    );
  });

  it("ranks sort-keys trial < proven < previous, as systemd-boot compares them (A to Z)", () => {
    expect(SORT_KEYS).toEqual({
      trial: "liken-0-trial",
      proven: "liken-1-proven",
      previous: "liken-2-previous",
    });
    const keys = [SORT_KEYS.previous, SORT_KEYS.trial, SORT_KEYS.proven];
    // Byte order, as systemd-boot's strcmp.
    expect([...keys].sort()).toEqual([SORT_KEYS.trial, SORT_KEYS.proven, SORT_KEYS.previous]);
  });

  it("boots a trial first even when it is an OLDER release than the proven one (a downgrade)", () => {
    const order = bootOrder([
      entry("a", "2.0.0", "proven"),
      entry("b", "1.0.0", "trial", { left: 1, done: 0 }),
    ]);
    expect(order[0]).toBe("liken-b-1.0.0+1-0.conf");
  });

  it("boots a trial first in either slot: A→B, then B→A", () => {
    expect(
      bootOrder([
        entry("a", "1.0.0", "proven"),
        entry("b", "2.0.0", "trial", { left: 1, done: 0 }),
      ]),
    ).toEqual(["liken-b-2.0.0+1-0.conf", "liken-a-1.0.0.conf"]);
    expect(
      bootOrder([
        entry("a", "1.0.0", "previous"),
        entry("b", "2.0.0", "proven"),
        entry("a", "3.0.0", "trial", { left: 1, done: 0 }),
      ]),
    ).toEqual(["liken-a-3.0.0+1-0.conf", "liken-b-2.0.0.conf", "liken-a-1.0.0.conf"]);
  });

  it("boots the proven entry, not the newer one it replaced or an exhausted trial", () => {
    expect(
      bootOrder([
        entry("b", "3.0.0", "trial", { left: 0, done: 1 }),
        entry("a", "2.0.0", "previous"),
        entry("b", "1.5.0", "proven"),
      ]),
    ).toEqual(["liken-b-1.5.0.conf", "liken-a-2.0.0.conf", "liken-b-3.0.0+0-1.conf"]);
  });
});

describe("the rest of the ESP's configuration", () => {
  it("names counted entries with a fixed-width counter", () => {
    expect(entryFileName("a", "1.0.0")).toBe("liken-a-1.0.0.conf");
    expect(entryFileName("b", "2.0.0", { left: 1, done: 0 })).toBe("liken-b-2.0.0+1-0.conf");
  });

  it("never sets a default entry (systemd-boot 252 would pin it past a failed trial)", () => {
    expect(loaderConf()).not.toMatch(/^default/m);
  });

  it("names the slot's partition and its verity root hash, and reboots 10 s after a panic", () => {
    expect(kernelOptions("a", ROOT)).toBe(
      `root=PARTUUID=62b67372-f6f3-8add-9fbd-37c635f1cff0 ro liken.slot=a liken.verity=${ROOT_HASH}:1234 console=tty0 console=ttyS0,115200 panic=10`,
    );
  });
});
