// The signed stick's enrollment, before its menu or its unattended install (docs/image.md,
// Secure Boot): in a machine in setup mode it reads which option ROMs the firmware ran from
// the TPM event log, plans db (enrollment-plan.ts), writes db, KEK and PK, says what went
// in, and restarts the machine, which then boots the stick with Secure Boot on.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { LikenError } from "../common/errors.ts";
import { ENROLLMENT_FILES } from "../formats/enrollment-files.ts";
import { rebootNow } from "../tools/reboot.ts";
import { EFIVARS } from "./efi-vars.ts";
import { enrolledNames, enrollKeys } from "./enroll-keys.ts";
import { type OptionRomFinding as PlanFinding, planEnrollment } from "./enrollment-plan.ts";
import { readSecureBoot } from "./secure-boot.ts";
import { deviceWords, type OptionRomFinding } from "./tpm/option-roms.ts";

export interface StickEnrollment {
  /** The payload's folder of .auth updates (STICK_PAYLOAD.secureBoot). */
  readonly keysDir: string;
  /** The manifest's keep_microsoft; undefined: the machine decides. */
  readonly keepMicrosoft: boolean | undefined;
  /** The event log's option ROMs (hardware/tpm/read-finding.ts), read only in setup mode. */
  readonly optionRoms: () => OptionRomFinding;
  readonly say: (line: string) => void;
}

/**
 * Enrolls and restarts the machine when it is in setup mode; returns when there is nothing
 * to enroll. A refusal or a write the firmware did not take throws, with PK not written.
 */
export async function enrollFromStick(o: StickEnrollment): Promise<void> {
  const state = (await readSecureBoot())?.state;
  if (state !== "setup-mode") return;
  const optionRoms = planFinding(o.optionRoms());
  const plan = planEnrollment({ state, keepMicrosoft: o.keepMicrosoft, optionRoms });
  if (plan.kind === "nothing") return;
  if (plan.kind === "refuse")
    throw new LikenError({ kind: "refused", what: plan.what, hint: plan.hint });
  o.say(`the machine is in setup mode: enrolling the cluster's Secure Boot keys`);
  o.say(plan.because);
  const read = (file: string) =>
    readFile(join(o.keysDir, file)).catch((error: unknown) => {
      throw new LikenError({
        kind: "failed",
        what: `the stick holds no ${file} in ${o.keysDir} (${(error as Error).message}); nothing enrolled`,
        hint: "build the stick again with liken-stick image --sign DIR",
        cause: error,
      });
    });
  const updates = {
    db: await read(plan.db === "cluster" ? ENROLLMENT_FILES.db : ENROLLMENT_FILES.dbMicrosoft),
    KEK: await read(ENROLLMENT_FILES.KEK),
    PK: await read(ENROLLMENT_FILES.PK),
  };
  const names = enrolledNames(updates);
  await enrollKeys(EFIVARS, updates, (name) =>
    o.say(`enrolled ${name}: ${names[name].join(", ")}`),
  );
  o.say("Secure Boot keys enrolled: restarting with Secure Boot on");
  await rebootNow();
}

/** The finding in the plan's words: each device named, or why it could not be checked. */
export function planFinding(finding: OptionRomFinding): PlanFinding {
  if (finding.kind === "none") return finding;
  if (finding.kind === "found") return { kind: "found", devices: finding.devices.map(deviceWords) };
  const why = {
    "no TPM": "no TPM",
    "no event log": "the TPM shows no event log",
    "unreadable event log": "the TPM event log does not parse",
  }[finding.why];
  return { kind: "unknown", why: finding.detail ?? why };
}
