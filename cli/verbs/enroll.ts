// `liken-stick enroll`: what a signed stick's /init runs before its menu or its unattended
// install. The flow is hardware/stick-enrollment.ts; this verb reads the manifest's
// keep_microsoft and hands the flow the event log's finding.
import { LikenError } from "../../common/errors.ts";
import { STICK_PAYLOAD } from "../../formats/stick-payload.ts";
import { enrollFromStick } from "../../hardware/stick-enrollment.ts";
import { readTpmPresence } from "../../hardware/tpm/presence.ts";
import { readOptionRomFinding } from "../../hardware/tpm/read-finding.ts";
import { systemPciNames } from "../../hwreport/pci-names.ts";
import { onLikenStick } from "../firmware-variables.ts";
import { requireManifest } from "../load-manifest.ts";
import type { Verb } from "../verb.ts";

export const enrollVerb: Verb = {
  words: ["enroll"],
  operands: "",
  minOperands: 0,
  maxOperands: 0,
  summary: "the signed stick's Secure Boot enrollment in a machine in setup mode",
  description: `
What a signed stick runs at its start, before the menu or the unattended install,
when its manifest's [secure_boot] says enroll = "force" (the default). On a
machine whose firmware is in setup mode it enrolls the cluster's keys, db, then
KEK, then PK, and restarts the machine, which then boots the stick with Secure
Boot on. On any other machine it does nothing and exits 0.

db holds the cluster's key, and Microsoft's UEFI CA beside it when the manifest
says keep_microsoft = true, or, when it says nothing, when the TPM event log
shows option ROMs the firmware ran (each device is named) or cannot be read. With
keep_microsoft = false and option ROMs found it enrolls nothing, names the
devices and exits 1. A key the firmware does not take stops it before PK, so
the machine stays in setup mode.

It runs only on a booted liken stick: it writes the firmware's own Secure Boot
variables.`,
  options: [],
  async run(_args, io) {
    if (!onLikenStick())
      throw new LikenError({
        kind: "refused",
        what: "this is not a booted liken stick, and enroll would write this computer's own Secure Boot keys",
        hint: "boot the signed stick on the machine: it enrolls the keys by itself in setup mode",
      });
    // Its warnings are the menu's and the install's to show; the build checked it, and the
    // initramfs checked it is the one built in.
    const quiet = { out: () => {}, err: () => {} };
    const cluster = await requireManifest(STICK_PAYLOAD.manifest, "enroll", quiet);
    await enrollFromStick({
      keysDir: STICK_PAYLOAD.secureBoot,
      keepMicrosoft: cluster.secureBoot?.keepMicrosoft,
      optionRoms: () => readOptionRomFinding("/", readTpmPresence("/"), systemPciNames),
      say: (line) => io.out(`liken-stick: ${line}\n`),
    });
    return 0;
  },
};
