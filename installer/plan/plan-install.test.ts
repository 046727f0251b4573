import { describe, expect, it } from "vitest";
import type { ClaimSummary, Disk } from "../../hardware/disks/types.ts";
import type { Manifest } from "../../manifest/types.ts";
import { plannerDisk } from "../../test/fixtures/disks.ts";
import { type InstallPlanInput, planInstall, planResultOf } from "./plan-install.ts";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const NEW_ID = "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b";
const NOW = 1_780_000_000;

const manifest: Manifest = {
  cluster: "mycluster",
  release: { version: "1.0.0" },
  layout: { esp: 512 * MIB, slot: 2 * GIB, crash_journal: 64 * MIB, state: GIB },
  storage: [{ role: "data", size: "rest" }],
  machines: [
    {
      name: "leader-1",
      role: "leader",
      ports: [],
      modules: [],
      nameservers: [],
      interfaces: [],
      reboot_policy: "Automatic",
    },
  ],
};

function disk(path: string, extra: Partial<Disk> = {}): Disk {
  return plannerDisk(path, 32 * GIB, extra.verdict ?? "blank", extra);
}

function liken(path: string, claim: Partial<ClaimSummary>): Disk {
  return disk(path, {
    verdict: "liken",
    claim: {
      cluster: "mycluster",
      machine: "leader-1",
      installId: "7d0c9e2a-1b3f-4c5d-8e9f-0a1b2c3d4e5f",
      release: "1.0.0",
      use: "system",
      complete: true,
      createdAt: "2026-01-02T03:04:05.000Z",
      ...claim,
    },
  });
}

function plan(disks: Disk[], over: Partial<InstallPlanInput> = {}) {
  return planInstall({
    disks,
    manifest,
    machine: "leader-1",
    release: { version: "1.0.0", rootfsSize: 64 * MIB },
    wipe: false,
    paths: [],
    newInstallId: NEW_ID,
    now: NOW,
    ...over,
  });
}

describe("planInstall", () => {
  it("plans a fresh install: the claim starts now, the steps run from lock to complete, storage before state", () => {
    const p = plan([disk("/dev/vda")]);
    if (p.kind !== "install") throw new Error(p.kind);
    expect(p.claim).toEqual({
      cluster: "mycluster",
      machine: "leader-1",
      installId: NEW_ID,
      release: "1.0.0",
      createdAt: NOW,
    });
    expect(p.steps.map((s) => s.what)).toEqual([
      "locking the target disks",
      "writing the liken claim",
      "writing the partition tables",
      "writing the ESP",
      "writing release 1.0.0 into slot A",
      "writing the crash journal",
      "clearing the storage role partitions",
      "writing the state partition",
      "marking the install complete",
    ]);
  });

  it("says a complete install of the same release is done, and refuses another release", () => {
    const done = liken("/dev/vda", {});
    expect(plan([done])).toMatchObject({ kind: "done", disk: done });
    const older = plan([done], { release: { version: "2.0.0", rootfsSize: 64 * MIB } });
    expect(older).toMatchObject({
      kind: "refused",
      failure: {
        reason: "DiskNotBlank",
        message: "/dev/vda holds release 1.0.0 of leader-1",
        hint: "use wipe and reinstall to install 2.0.0",
      },
    });
  });

  it("resumes a partial install with its own start time", () => {
    const partial = liken("/dev/vda", { complete: false });
    const p = plan([partial]);
    if (p.kind !== "install") throw new Error(p.kind);
    expect(p.claim.installId).toBe("7d0c9e2a-1b3f-4c5d-8e9f-0a1b2c3d4e5f");
    expect(p.claim.createdAt).toBe(Date.parse("2026-01-02T03:04:05.000Z") / 1000);
  });

  it("refuses a wipe that names a disk holding data liken did not write", () => {
    const foreign = disk("/dev/vdb", { verdict: "foreign", reasons: ["signature:ext4@0x438"] });
    expect(
      plan([liken("/dev/vda", {}), foreign], { wipe: true, paths: ["/dev/vda", "/dev/vdb"] }),
    ).toMatchObject({
      kind: "refused",
      failure: {
        reason: "DiskNotLiken",
        message:
          "wipe and reinstall refuses disks holding data liken did not write: /dev/vdb (signature:ext4@0x438)",
      },
    });
  });

  it("erases each liken disk of a wipe in a step of its own", () => {
    const p = plan([liken("/dev/vda", {})], { wipe: true });
    if (p.kind !== "install") throw new Error(p.kind);
    expect(p.steps.filter((s) => s.step === "erase")).toEqual([
      {
        step: "erase",
        what: "erasing the liken install on /dev/vda",
        disk: "/dev/vda",
        failure: "WriteFailed",
      },
    ]);
  });

  it("finishes a two-disk install killed while it marked its disks complete", () => {
    // The storage disk is marked complete first, the system disk last (install.ts).
    const twoDisks = { manifest: { ...manifest, storage: [{ role: "data", size: 28 * GIB }] } };
    const system = liken("/dev/vda", { complete: false });
    const storage = liken("/dev/vdb", { use: "storage", complete: true });
    const p = plan([system, storage], twoDisks);
    if (p.kind !== "install") throw new Error(p.kind);
    expect(p.layout.installId).toBe("7d0c9e2a-1b3f-4c5d-8e9f-0a1b2c3d4e5f");
    expect(p.layout.disks.map((d) => [d.path, d.action])).toEqual([
      ["/dev/vda", "resume"],
      ["/dev/vdb", "resume"],
    ]);
    // A disk left partial by an older installer (system complete first) is finished too.
    const old = plan(
      [
        liken("/dev/vda", { complete: true }),
        liken("/dev/vdb", { use: "storage", complete: false }),
      ],
      twoDisks,
    );
    expect(old.kind).toBe("install");
  });

  it("refuses a disk another install is writing, before anything else about it", () => {
    const partial = liken("/dev/vda", { complete: false });
    expect(plan([partial], { writing: new Map([["/dev/vda", 4242]]) })).toMatchObject({
      kind: "refused",
      failure: {
        reason: "DiskBusy",
        message: "/dev/vda is being written by another install (process 4242)",
        hint: "wait for that install to finish, then run this one again if it is still needed",
      },
    });
  });

  it("refuses a confirmed plan whose disk now holds data as DiskChanged, naming the change", () => {
    const confirmed = plan([disk("/dev/vda")]);
    if (confirmed.kind !== "install") throw new Error(confirmed.kind);
    const written = disk("/dev/vda", {
      verdict: "foreign",
      reasons: ["signature:ext4@0x438", "nonzero-data:head"],
    });
    expect(plan([written], { confirmed: confirmed.layout })).toMatchObject({
      kind: "refused",
      failure: {
        reason: "DiskChanged",
        message:
          "the disks changed since the plan was confirmed: /dev/vda was blank, now it is foreign (signature:ext4@0x438, nonzero-data:head)",
        hint: "review the plan again, and confirm the new one",
      },
    });
    expect(plan([], { confirmed: confirmed.layout })).toMatchObject({
      failure: { message: "the disks changed since the plan was confirmed: /dev/vda is gone" },
    });
    // The disks as they were: the same plan, with the confirmed install id.
    const again = plan([disk("/dev/vda")], {
      confirmed: confirmed.layout,
      newInstallId: confirmed.layout.installId,
    });
    expect(again.kind).toBe("install");
  });

  it("shows a machine that is already installed as the menu and the report read it", () => {
    const done = plan([liken("/dev/vda", {})]);
    expect(planResultOf(done)).toMatchObject({
      ok: false,
      failure: {
        reason: "DiskNotBlank",
        message: "no blank disk: /dev/vda holds the liken install of mycluster/leader-1",
        hint: "use wipe and reinstall as leader-1 to replace it",
      },
    });
    // With a blank disk beside it, install as still writes nothing, and says so.
    const besideBlank = plan([liken("/dev/vda", {}), disk("/dev/vdb")]);
    expect(besideBlank.kind).toBe("done");
    expect(planResultOf(besideBlank)).toMatchObject({
      ok: false,
      failure: {
        message:
          "/dev/vda holds the liken install of mycluster/leader-1 already: install as writes nothing",
      },
    });
  });
});

describe("planInstall, wipe and reinstall of a mirrored machine", () => {
  const member = (path: string, n: 1 | 2, peer: string) =>
    liken(path, { mirror: { member: n, of: 2, peer: { serial: peer } } });

  it("erases both members", () => {
    const p = plan([member("/dev/sda", 1, "S2"), member("/dev/sdb", 2, "S1")], { wipe: true });
    if (p.kind !== "install") throw new Error(p.kind);
    expect(p.layout.disks.map((d) => [d.path, d.action])).toEqual([
      ["/dev/sda", "erase-and-write"],
      ["/dev/sdb", "erase-and-write"],
    ]);
  });

  it("erases the second member with the first when the new layout needs one disk", () => {
    const p = plan([member("/dev/sda", 1, "S2"), member("/dev/sdb", 2, "S1")], {
      wipe: true,
      manifest: { ...manifest, storage: [] },
    });
    if (p.kind !== "install") throw new Error(p.kind);
    expect(p.layout.disks.map((d) => [d.path, d.use, d.action, d.partitions.length])).toEqual([
      ["/dev/sda", "system", "erase-and-write", 5],
      ["/dev/sdb", "storage", "erase-and-write", 0],
    ]);
  });

  it("refuses when one member is missing, naming it", () => {
    const p = plan([member("/dev/sda", 1, "S2"), disk("/dev/sdc")], { wipe: true });
    if (p.kind !== "refused") throw new Error(p.kind);
    expect(p.failure.reason).toBe("MirrorMemberMissing");
    expect(p.failure.message).toBe(
      "wipe and reinstall would erase /dev/sda, mirror member 1 of 2 of mycluster/leader-1, without its other member (S2), which is not here",
    );
  });

  it("leaves another cluster's lone member to that cluster", () => {
    const other = liken("/dev/sda", {
      cluster: "other",
      mirror: { member: 2, of: 2, peer: { serial: "S9" } },
    });
    const p = plan([other, disk("/dev/sdc")], { wipe: true });
    expect(p.kind).toBe("install");
  });
});
