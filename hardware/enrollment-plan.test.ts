import { describe, expect, it } from "vitest";
import { type EnrollmentFacts, type OptionRomFinding, planEnrollment } from "./enrollment-plan.ts";

const FOUND: OptionRomFinding = {
  kind: "found",
  devices: ["0000:00:02.0 Red Hat, Inc. Virtio network device", "0000:03:00.0"],
};
const NONE: OptionRomFinding = { kind: "none" };
const UNKNOWN: OptionRomFinding = { kind: "unknown", why: "no TPM" };

const plan = (keepMicrosoft: boolean | undefined, optionRoms: OptionRomFinding) =>
  planEnrollment({ state: "setup-mode", keepMicrosoft, optionRoms });

describe("a machine not in setup mode", () => {
  it.each<[EnrollmentFacts["state"], string]>([
    ["enabled", "Secure Boot is on with keys enrolled, not in setup mode"],
    ["disabled", "Secure Boot is off with keys enrolled, not in setup mode"],
    [undefined, "the firmware shows no Secure Boot variables"],
  ])("%s: enrolls nothing, whatever the event log says", (state, why) => {
    for (const keepMicrosoft of [true, false, undefined])
      expect(planEnrollment({ state, keepMicrosoft, optionRoms: FOUND })).toEqual({
        kind: "nothing",
        why,
      });
  });
});

describe("keep_microsoft not set: the machine decides", () => {
  it("option ROMs found: keeps Microsoft's CA and names each device", () => {
    expect(plan(undefined, FOUND)).toEqual({
      kind: "enroll",
      db: "cluster-and-microsoft",
      because:
        "db keeps Microsoft's UEFI CA, which signs the option ROMs the firmware ran: 0000:00:02.0 Red Hat, Inc. Virtio network device, 0000:03:00.0",
    });
  });

  it("none: the cluster's key alone", () => {
    expect(plan(undefined, NONE)).toEqual({
      kind: "enroll",
      db: "cluster",
      because: "db holds the cluster's key alone: the firmware ran no option ROM",
    });
  });

  it("no event log: keeps Microsoft's CA and says it could not check", () => {
    expect(plan(undefined, UNKNOWN)).toEqual({
      kind: "enroll",
      db: "cluster-and-microsoft",
      because: "db keeps Microsoft's UEFI CA: could not check for option ROMs (no TPM)",
    });
  });
});

describe("keep_microsoft = true", () => {
  it.each([FOUND, NONE, UNKNOWN])("keeps Microsoft's CA (%o)", (roms) => {
    expect(plan(true, roms)).toEqual({
      kind: "enroll",
      db: "cluster-and-microsoft",
      because: "db keeps Microsoft's UEFI CA: the manifest says keep_microsoft = true",
    });
  });
});

describe("keep_microsoft = false", () => {
  it("with option ROMs found: refuses, names the devices and both ways out", () => {
    const refused = plan(false, FOUND);
    expect(refused).toEqual({
      kind: "refuse",
      what: "nothing enrolled: the manifest says keep_microsoft = false, and the firmware ran option ROMs that Microsoft's UEFI CA signs, which would no longer run: 0000:00:02.0 Red Hat, Inc. Virtio network device, 0000:03:00.0",
      hint: "set keep_microsoft = true in [secure_boot] and build the stick again, or remove or disable those cards' option ROMs in the firmware's setup",
    });
  });

  it("with none: the cluster's key alone", () => {
    expect(plan(false, NONE)).toEqual({
      kind: "enroll",
      db: "cluster",
      because:
        "db holds the cluster's key alone, as keep_microsoft = false says: the firmware ran no option ROM",
    });
  });

  it("without an event log: as told, saying it could not check", () => {
    expect(plan(false, UNKNOWN)).toEqual({
      kind: "enroll",
      db: "cluster",
      because:
        "db holds the cluster's key alone, as keep_microsoft = false says: could not check for option ROMs (no TPM)",
    });
  });
});
