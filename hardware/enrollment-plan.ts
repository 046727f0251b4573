// What the signed stick enrolls in a machine in setup mode (docs/image.md, Secure Boot): the
// cluster's PK, KEK and db, and whether db keeps Microsoft's UEFI CA, which signs the option
// ROMs of most add-in cards. A machine whose db loses it stops running them, and can lose
// its screen, its network or its disks (kairos#2377), so what the TPM event log says the
// firmware ran decides when the manifest does not.
import type { SecureBootState } from "../formats/secure-boot-vars.ts";

/** What the TPM event log says about option ROMs the firmware ran before the stick. */
export type OptionRomFinding =
  | { readonly kind: "none" }
  /** Each device named as well as the machine lets it be (its PCI address at least). */
  | { readonly kind: "found"; readonly devices: readonly string[] }
  /** No TPM, no event log, or one that cannot be read: `why` says which. */
  | { readonly kind: "unknown"; readonly why: string };

export interface EnrollmentFacts {
  /** The firmware's Secure Boot state; undefined on a machine without UEFI variables. */
  readonly state: SecureBootState | undefined;
  /** The manifest's [secure_boot] keep_microsoft; undefined: the machine decides. */
  readonly keepMicrosoft: boolean | undefined;
  readonly optionRoms: OptionRomFinding;
}

/** Which db the stick writes: the cluster's key alone, or with Microsoft's UEFI CA. */
export type DbChoice = "cluster" | "cluster-and-microsoft";

export type EnrollmentPlan =
  /** Not in setup mode: the keys are the firmware's business, the boot goes on. */
  | { readonly kind: "nothing"; readonly why: string }
  /** db, then KEK, then PK (last: it ends setup mode), then a restart. */
  | {
      readonly kind: "enroll";
      readonly db: DbChoice;
      /** Why this db, for the console. */
      readonly because: string;
    }
  /** Nothing is written: the machine stays in setup mode. */
  | { readonly kind: "refuse"; readonly what: string; readonly hint: string };

const MICROSOFT = "Microsoft's UEFI CA";

/** Decides the enrollment from the machine's state, the manifest and the event log. */
export function planEnrollment(facts: EnrollmentFacts): EnrollmentPlan {
  if (facts.state !== "setup-mode")
    return {
      kind: "nothing",
      why:
        facts.state === undefined
          ? "the firmware shows no Secure Boot variables"
          : `Secure Boot is ${facts.state === "enabled" ? "on" : "off"} with keys enrolled, not in setup mode`,
    };
  const roms = facts.optionRoms;
  const keep = (because: string): EnrollmentPlan => ({
    kind: "enroll",
    db: "cluster-and-microsoft",
    because,
  });
  const alone = (because: string): EnrollmentPlan => ({ kind: "enroll", db: "cluster", because });
  const devices = roms.kind === "found" ? roms.devices.join(", ") : "";
  if (facts.keepMicrosoft === true)
    return keep(`db keeps ${MICROSOFT}: the manifest says keep_microsoft = true`);
  if (facts.keepMicrosoft === undefined) {
    if (roms.kind === "found")
      return keep(
        `db keeps ${MICROSOFT}, which signs the option ROMs the firmware ran: ${devices}`,
      );
    if (roms.kind === "unknown")
      return keep(`db keeps ${MICROSOFT}: could not check for option ROMs (${roms.why})`);
    return alone("db holds the cluster's key alone: the firmware ran no option ROM");
  }
  if (roms.kind === "found")
    return {
      kind: "refuse",
      what: `nothing enrolled: the manifest says keep_microsoft = false, and the firmware ran option ROMs that ${MICROSOFT} signs, which would no longer run: ${devices}`,
      hint: "set keep_microsoft = true in [secure_boot] and build the stick again, or remove or disable those cards' option ROMs in the firmware's setup",
    };
  if (roms.kind === "unknown")
    return alone(
      `db holds the cluster's key alone, as keep_microsoft = false says: could not check for option ROMs (${roms.why})`,
    );
  return alone(
    "db holds the cluster's key alone, as keep_microsoft = false says: the firmware ran no option ROM",
  );
}
