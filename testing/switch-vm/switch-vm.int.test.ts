// The switch VM's parts that need the host's tools: its shell scripts through shellcheck,
// its initramfs built twice to the same bytes, its cables on free UDP ports.
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatFinding, shellcheck } from "../shellcheck.ts";
import { cables } from "./cable.ts";
import { switchInit } from "./init-script.ts";
import { buildSwitchBootFiles } from "./initramfs.ts";
import { uplinkTapScript } from "./uplink.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-switch-vm-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the switch VM's shell scripts", () => {
  it.each([
    // busybox sh runs /init: dash is its closest kin shellcheck knows (testing/shellcheck.ts).
    ["its /init", switchInit()],
    // the host's /bin/sh (dash on Debian) runs QEMU's tap script
    ["the uplink's tap script", uplinkTapScript("liken-sw-1a", "br0", 9000)],
  ])("%s passes shellcheck", async (name, text) => {
    const findings = await shellcheck(text, "dash");
    expect(findings.map((f) => formatFinding(name, f))).toEqual([]);
  });
});

describe("the switch VM's initramfs", () => {
  it("is built twice to the same bytes, with bonding, 8021q, bridge and virtio_net", async () => {
    const digests: string[] = [];
    for (const n of [1, 2]) {
      const out = join(dir, `out-${n}`);
      await buildSwitchBootFiles(out, join(dir, `scratch-${n}`));
      digests.push(
        createHash("sha256")
          .update(await readFile(join(out, "initrd.img")))
          .digest("hex"),
      );
    }
    expect(digests[1]).toBe(digests[0]);
    // The kernel is the ELF out of Debian's bzImage, which QEMU boots through PVH.
    const elf = await readFile(join(dir, "out-1", "vmlinux"));
    expect(elf.subarray(0, 4).toString("latin1")).toBe("\x7fELF");
    const modules = join(dir, "scratch-1", "tree", "lib", "modules");
    const [kernel] = await readdir(modules);
    const dep = await readFile(join(modules, kernel ?? "", "modules.dep"), "utf8");
    for (const m of [
      "bonding",
      "8021q",
      "bridge",
      "virtio_net",
      "virtio_pci",
      "llc",
      "stp",
      "garp",
      "mrp",
    ])
      expect(dep).toMatch(new RegExp(`/${m}\\.ko:`));
  }, 120_000);
});

describe("a cable", () => {
  it("pairs two free UDP ports the other way round at each end, with a speed for 802.3ad", async () => {
    const [a, b] = await cables(2);
    const sw = a?.switchNic.socket;
    const machine = a?.machineNic.socket;
    expect(sw?.localPort).toBe(machine?.peerPort);
    expect(sw?.peerPort).toBe(machine?.localPort);
    expect(sw?.localPort).not.toBe(sw?.peerPort);
    expect(a?.machineNic).toMatchObject({ model: "virtio", speedMbps: 10_000 });
    expect(b?.switchNic.socket?.localPort).not.toBe(sw?.localPort);
  });
});
