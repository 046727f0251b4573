import { describe, expect, it } from "vitest";
import { LIBRARY_DIRS, libraryDirs } from "./elf.ts";

describe("the loader's search folders", () => {
  it("are the arch's multiarch folders first; amd64's glibc adds /lib64, arm64's does not", () => {
    expect(libraryDirs("amd64")).toEqual([
      "/lib/x86_64-linux-gnu",
      "/usr/lib/x86_64-linux-gnu",
      "/lib64",
      "/lib",
      "/usr/lib",
    ]);
    expect(libraryDirs("arm64")).toEqual([
      "/lib/aarch64-linux-gnu",
      "/usr/lib/aarch64-linux-gnu",
      "/lib",
      "/usr/lib",
    ]);
    expect(LIBRARY_DIRS).toEqual(libraryDirs("amd64"));
  });
});
