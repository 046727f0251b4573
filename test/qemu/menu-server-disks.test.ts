// The menu's confirmation on a server's buses, as a person at a serial terminal reads it: a
// machine with a SCSI disk (virtio-scsi), a SATA disk (AHCI), an NVMe namespace and a virtio
// disk, and a manifest whose four machines each pick one of them by WWN or serial
// (test/fixtures/manifests/good/server-disks.toml). Each machine's confirmation names the
// disk it writes with the serial and WWN that tell it from its twins; nothing is written.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";
import type { VmDisk } from "../../testing/qemu/index.ts";
import { contentDigest, sparseFile } from "../disk-files.ts";
import { startVm } from "./harness.ts";
import { KEYS, SerialTerminal } from "./menu-screen.ts";

const GIB = 1024 ** 3;
let dir: string;
let stick: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-qemu-menu-server-"));
  const release = await cachedRelease({ version: "1.0.0" });
  stick = await cachedStick({
    manifest: "test/fixtures/manifests/good/server-disks.toml",
    releaseDir: release,
  });
}, 300_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it("shows the serial and WWN of the disk each machine writes, on SCSI, SATA, NVMe and virtio", async () => {
  const disk = async (name: string, spec: Omit<VmDisk, "path">): Promise<VmDisk> => ({
    path: await sparseFile(join(dir, `${name}.img`), 4 * GIB),
    ...spec,
  });
  const disks = [
    await disk("scsi", { bus: "virtio-scsi", serial: "VSCSI-02", wwn: "0x5000c50015ea71d0" }),
    await disk("sata", { bus: "ahci", serial: "SATA-02", wwn: "0x50014ee20b6c3a20" }),
    await disk("nvme", { bus: "nvme", serial: "NVME-02" }),
    await disk("virtio", { bus: "virtio", serial: "VIRTIO-02" }),
  ];
  const blank = await contentDigest(disks[0]!.path);
  // Each machine, the disk its confirmation must name, and what must be shown beside it.
  const expected: [string, RegExp, RegExp][] = [
    ["leader-1", /\/dev\/sd[a-z]/, /serial VSCSI-02 wwn 0x5000c50015ea71d0/],
    ["worker-1", /\/dev\/sd[a-z]/, /serial SATA-02 wwn 0x50014ee20b6c3a20/],
    ["worker-2", /\/dev\/nvme0n1/, /serial NVME-02 wwn \S+/],
    ["worker-3", /\/dev\/vda/, /serial VIRTIO-02(?! wwn)/],
  ];

  const vm = await startVm({ stick, disks });
  const term = new SerialTerminal(vm);
  try {
    await vm.waitFor(/liken-stick: payload \/dev\/sd\w+ verified/, 180_000);
    await term.waitFor(["> Install as leader-1", "Arrows or j/k: move"], 120_000);
    for (const [i, [machine, path, identity]] of expected.entries()) {
      if (i > 0) await term.keys(KEYS.down);
      await term.waitFor([`> Install as ${machine}`], 30_000);
      await term.keys(KEYS.enter);
      const screen = await term.waitFor(
        [
          `Install as ${machine}? Nothing is written until you choose Yes.`,
          "> No, back to the menu",
        ],
        120_000,
      );
      const flat = screen.replace(/\s+/g, " ");
      expect(flat, screen).toContain("It writes 1 disk:");
      expect(flat, screen).toMatch(
        new RegExp(`${path.source} 4 GiB system disk, role data, written from blank`),
      );
      expect(flat, screen).toMatch(identity);
      await term.keys(KEYS.enter);
      await term.waitFor([`> Install as ${machine}`, "Choose an entry."], 60_000);
    }
  } finally {
    term.stop();
    await vm.stop();
  }
  expect(await contentDigest(disks[0]!.path)).toBe(blank);
}, 900_000);
