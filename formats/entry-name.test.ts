import { describe, expect, it } from "vitest";
import { entryFileName } from "./boot-entries.ts";
import { entryState, parseEntryName } from "./entry-name.ts";

describe("parseEntryName", () => {
  it("reads a proven entry: no counter", () => {
    expect(parseEntryName("liken-a-1.0.0.conf")).toEqual({
      slot: "a",
      version: "1.0.0",
      triesLeft: null,
      triesDone: null,
    });
  });

  it("reads a trial entry with one try left and none done", () => {
    expect(parseEntryName("liken-b-2.0.0+1-0.conf")).toEqual({
      slot: "b",
      version: "2.0.0",
      triesLeft: 1,
      triesDone: 0,
    });
  });

  it("reads an exhausted entry", () => {
    expect(parseEntryName("liken-b-2.0.0+0-1.conf")).toEqual({
      slot: "b",
      version: "2.0.0",
      triesLeft: 0,
      triesDone: 1,
    });
  });

  it("reads a counter without tries done as none done", () => {
    expect(parseEntryName("liken-a-2.0.0+3.conf")).toMatchObject({ triesLeft: 3, triesDone: 0 });
  });

  it("keeps a pre-release version whole, with and without a counter", () => {
    expect(parseEntryName("liken-a-2.0.1-rc.1.conf")).toMatchObject({
      version: "2.0.1-rc.1",
      triesLeft: null,
    });
    expect(parseEntryName("liken-b-2.0.1-rc.1+1-0.conf")).toMatchObject({
      slot: "b",
      version: "2.0.1-rc.1",
      triesLeft: 1,
      triesDone: 0,
    });
    expect(parseEntryName("liken-b-2.0.1-rc-2+0-3.conf")).toMatchObject({
      version: "2.0.1-rc-2",
      triesLeft: 0,
      triesDone: 3,
    });
  });

  it("reads back every name the installer writes", () => {
    for (const version of ["1.0.0", "10.20.30", "2.0.1-rc.1", "3.0.0-0.beta-2"]) {
      for (const slot of ["a", "b"] as const) {
        for (const tries of [undefined, { left: 1, done: 0 }, { left: 0, done: 2 }]) {
          expect(parseEntryName(entryFileName(slot, version, tries))).toEqual({
            slot,
            version,
            triesLeft: tries?.left ?? null,
            triesDone: tries?.done ?? null,
          });
        }
      }
    }
  });

  it("refuses names that are not liken entries", () => {
    for (const name of [
      "liken-a-1.0.0",
      "liken-a-1.0.0.conf~",
      "liken-c-1.0.0.conf",
      "liken-a-.conf",
      "liken-a-1.0.conf",
      "liken-a-1.0.0+.conf",
      "liken-a-1.0.0+x-1.conf",
      "liken-a-1.0.0+1-.conf",
      "liken-a-1.0.0+1+1.conf",
      "other-a-1.0.0.conf",
      "LIKEN-A-1.0.0.CONF",
      "debian.conf",
      "",
    ]) {
      expect(parseEntryName(name), name).toBeUndefined();
    }
  });
});

describe("entryState", () => {
  it("names the three states of boot counting", () => {
    expect(entryState({ triesLeft: null })).toBe("blessed");
    expect(entryState({ triesLeft: 1 })).toBe("trial");
    expect(entryState({ triesLeft: 0 })).toBe("exhausted");
  });
});
