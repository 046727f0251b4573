import { describe, expect, it } from "vitest";
import { editDistance, nearest } from "../manifest/suggest.ts";
import { interfaceNameProblem, isDnsLabel, isVersion, nearestDnsLabel } from "./names.ts";

describe("nearest", () => {
  it.each([
    ["slots", "slot"],
    ["nmae", "name"],
    ["Serial", "serial"],
    ["crash-journal", "crash_journal"],
    ["crashJournal", "crash_journal"],
    ["manual", "Manual"],
    ["folower", "follower"],
  ])("suggests %j for %j", (word, expected) => {
    const allowed = ["slot", "name", "serial", "crash_journal", "Manual", "Automatic", "follower"];
    expect(nearest(word, allowed)).toBe(expected);
  });

  it.each(["owner", "x", "ab", "journalist"])("suggests nothing for %j", (word) => {
    expect(nearest(word, ["esp", "slot", "state", "crash_journal"])).toBeUndefined();
  });

  it("counts a swap of neighbours as one edit", () => {
    expect(editDistance("nmae", "name")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });
});

describe("names", () => {
  it("knows DNS-1123 labels", () => {
    expect(isDnsLabel("a")).toBe(true);
    expect(isDnsLabel("leader-1")).toBe(true);
    expect(isDnsLabel("a".repeat(63))).toBe(true);
    expect(isDnsLabel("a".repeat(64))).toBe(false);
    expect(isDnsLabel("a".repeat(31), 30)).toBe(false);
    for (const bad of ["", "-a", "a-", "A", "a_b", "a.b", "é"]) expect(isDnsLabel(bad)).toBe(false);
    expect(nearestDnsLabel("My_Cluster")).toBe("my-cluster");
    expect(nearestDnsLabel("___")).toBeUndefined();
  });

  it("knows versions", () => {
    for (const good of ["1.0.0", "0.0.1", "10.20.30-rc.1", "1.0.0-a-b.c"])
      expect(isVersion(good)).toBe(true);
    for (const bad of ["1.0", "v1.0.0", "1.0.0-", "1.0.0+build", "1.0.0-rc_1", ""])
      expect(isVersion(bad)).toBe(false);
  });

  it("knows interface names", () => {
    for (const good of ["eno1", "enp0s31f6", "a".repeat(15), "bond0.100", "é"]) {
      expect(interfaceNameProblem(good)).toBeUndefined();
    }
    expect(interfaceNameProblem("é".repeat(8))).toBe("is 16 bytes long, more than 15");
    expect(interfaceNameProblem("a\0b")).toBe("contains a NUL character");
    expect(interfaceNameProblem("a\tb")).toBe("contains whitespace");
    expect(interfaceNameProblem("..")).toBe("is not an interface name");
  });
});
