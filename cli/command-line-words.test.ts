// The planner's advice as each surface says it: the command line names its flags, the menu
// its entries.
import { describe, expect, it } from "vitest";
import type { Disk } from "../hardware/disks/types.ts";
import { planLayout } from "../installer/plan/plan-layout.ts";
import { renderPlanFailure } from "../installer/plan/render.ts";
import type { Manifest } from "../manifest/types.ts";
import { inMenuWords } from "../menu/menu-words.ts";
import { plannerDisk } from "../test/fixtures/disks.ts";
import { inCommandLineWords } from "./command-line-words.ts";

const GIB = 1024 ** 3;
const manifest: Manifest = {
  cluster: "mycluster",
  release: { version: "1.0.0" },
  layout: { esp: 512 * 2 ** 20, slot: 2 * GIB, crash_journal: 64 * 2 ** 20, state: GIB },
  storage: [],
  machines: [
    {
      name: "leader-1",
      role: "leader",
      ports: [],
      modules: [],
      nameservers: [],
      interfaces: [],
      reboot_policy: "Manual",
    },
  ],
};

function likenDisk(path: string, cluster: string): Disk {
  return plannerDisk(path, 64 * GIB, "liken", {
    claim: {
      cluster,
      machine: "leader-1",
      installId: "0b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
      release: "1.0.0",
      use: "system",
      complete: true,
      createdAt: "",
    },
  });
}

function refusal(disks: Disk[], wipe = false) {
  const result = planLayout({
    disks,
    manifest,
    machine: "leader-1",
    wipe,
    newInstallId: "1b7e8a52-34c1-4b7f-9a55-3f1d2e4c5a6b",
  });
  if (result.ok) throw new Error("the plan was expected to fail");
  return result.failure;
}

describe("the planner's advice on the command line", () => {
  it("names --wipe to replace this machine's install", () => {
    const failure = refusal([likenDisk("/dev/sda", "mycluster")]);
    expect(inCommandLineWords(failure.hint)).toBe("run it again with --wipe to replace it");
    expect(inCommandLineWords(renderPlanFailure(failure))).not.toMatch(/wipe and reinstall/);
  });

  it("names --wipe-cluster for another cluster's disk", () => {
    const failure = refusal([likenDisk("/dev/sda", "other")]);
    expect(inCommandLineWords(failure.hint)).toBe(
      "attach a blank disk; liken erases another cluster's disk only when --wipe-cluster names it",
    );
    const wiped = refusal([likenDisk("/dev/sda", "other")], true);
    expect(inCommandLineWords(renderPlanFailure(wiped))).toContain(
      "--wipe erases only mycluster's disks (--wipe-cluster other erases it)",
    );
  });
});

describe("the planner's advice in the menu", () => {
  it("names the wipe screen's question where the command line has --wipe-cluster", () => {
    const wiped = refusal([likenDisk("/dev/sda", "other")], true);
    const text = inMenuWords(renderPlanFailure(wiped));
    expect(text).toContain(
      "wipe and reinstall erases only mycluster's disks (erased too if you type other on the wipe and reinstall screen)",
    );
    expect(text).not.toContain("--");
  });
});
