// A package pinned in non-free-firmware comes through the private apt, whatever the host's
// sources list (a fresh Debian 12 lists only main): the smallest firmware package of the
// lock, from deb.debian.org into an empty cache.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchDebs, readPackagesLock } from "./debian.ts";
import { archSources, componentSources } from "./private-apt.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-private-apt-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a non-free-firmware package of the lock", () => {
  it("is fetched and verified through a private apt, which leaves nothing behind", async () => {
    const firmware = (await readPackagesLock()).filter((e) => e.component === "non-free-firmware");
    expect(firmware.map((e) => e.name)).toContain("firmware-realtek");
    const smallest = [...firmware].sort((a, b) => a.size - b.size)[0]!;
    const paths = await fetchDebs([smallest], join(dir, "debs"));
    expect(paths.get(smallest.name)).toBe(join(dir, "debs", smallest.filename));
    expect(await readdir(join(dir, "debs"))).toEqual([smallest.filename]);
  }, 120_000);

  it("comes from bookworm, its updates and its security archive, that component only", () => {
    const lines = componentSources("non-free-firmware").trim().split("\n");
    expect(lines).toHaveLength(3);
    for (const l of lines)
      expect(l).toMatch(/^deb \[signed-by=\S+\] http\S+ bookworm\S* non-free-firmware$/);
  });

  it("for another arch, lists main and non-free-firmware of the same three archives", () => {
    const lines = archSources().trim().split("\n");
    expect(lines).toHaveLength(3);
    for (const l of lines)
      expect(l).toMatch(/^deb \[signed-by=\S+\] http\S+ bookworm\S* main non-free-firmware$/);
  });
});
