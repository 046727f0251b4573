// Writing a release into the slot that is not running: what step 4 of the boot
// (staging-step.ts, docs/design.md section 5) runs once it has decided to stage, and the
// refusals (StagingRefused) it ends with when the release cannot go there. The order keeps
// every instant safe: the slot's entries and release.toml go first (a half-written slot is
// never bootable and reads empty), then the slot's data blocks are written and read back,
// then its kernel and initrd, and its counted entry last. A power loss anywhere leaves the
// proven slot to boot, and the next boot starts the staging over.
import { open } from "node:fs/promises";
import { LikenError } from "../common/errors.ts";
import { releaseSigner, requireRelease, verifyRelease } from "../formats/release.ts";
import { hashRegion, writeImage } from "../formats/write-image.ts";
import { disksMissingDrivers, portsMissingDrivers } from "../hardware/missing-drivers.ts";
import { readSecureBoot } from "../hardware/secure-boot.ts";
import { type StagingDecision, stagedEntry } from "./boot-plan.ts";
import { applyEntryActions, forgetSlot, installSlotFiles } from "./esp.ts";
import type { Partition } from "./machine.ts";
import type { Slot, StagingRejectedReason } from "./types.ts";

export class StagingRefused extends Error {
  constructor(
    readonly reason: StagingRejectedReason,
    message: string,
  ) {
    super(message);
  }
}

export interface StageInput {
  readonly decision: Extract<StagingDecision, { kind: "stage" }>;
  /** The release directory the spec points at, resolved; null when the spec names none. */
  readonly releaseDir: string | null;
  readonly esp: string;
  readonly slot: Partition;
  readonly partUuids: Readonly<Record<Slot, string>>;
  /** The disks the release must boot from (the install's), by kernel name. */
  readonly disks: readonly string[];
  /** The declared ports, which the release must drive. */
  readonly ports: readonly string[];
  readonly progress: (line: string) => void;
}

export async function stageRelease(input: StageInput): Promise<void> {
  const { decision, releaseDir } = input;
  if (releaseDir === null)
    throw new StagingRefused(
      "ReleaseNotFound",
      `release ${decision.version} is not on this machine and the spec names no source`,
    );
  const release = await requireRelease(releaseDir).catch((error: Error) => {
    throw new StagingRefused("ReleaseNotFound", describe(error));
  });
  if (release.version !== decision.version)
    throw new StagingRefused(
      "ReleaseInvalid",
      `${releaseDir} holds release ${release.version}, the spec names ${decision.version}`,
    );
  // Cheap refusals first. The same verdict as the hardware report and the installer: this
  // machine's disks against the new release's boot-modules.json (a release that could not
  // find its own disks would only fail its trial).
  const missing = await disksMissingDrivers(release, input.disks).catch((error: Error) => {
    throw new StagingRefused("ReleaseInvalid", describe(error));
  });
  const [first] = missing;
  if (first)
    throw new StagingRefused(
      "MissingDriver",
      `release ${release.version} cannot boot from disk ${first.disk}: its boot path lacks ${first.modules.join(", ")}; build the release with that module, or name a release that has it`,
    );
  // A release that cannot drive a declared port would boot without its network.
  const [port] = await portsMissingDrivers(release, input.ports).catch((error: Error) => {
    throw new StagingRefused("ReleaseInvalid", describe(error));
  });
  if (port)
    throw new StagingRefused(
      "MissingDriver",
      `release ${release.version} cannot drive port ${port.port}: its root lacks ${port.modules.join(", ")}; build the release with that module, or name a release that has it`,
    );
  // With Secure Boot on, the firmware would refuse an image this machine's db does not lead
  // to, at the trial's reboot (and a server that does not retry its boot order would then
  // wait at its firmware's screen): refused here, before a byte is written.
  const secureBoot = await readSecureBoot();
  if (secureBoot?.state === "enabled") {
    const { verdict, signer } = await releaseSigner(release, secureBoot.db);
    if (verdict === "unsigned")
      throw new StagingRefused(
        "SignatureNotTrusted",
        `release ${release.version} is not signed and this machine boots with Secure Boot on: build it with liken-stick release --sign DIR (the cluster's keys)`,
      );
    if (verdict === "untrusted")
      throw new StagingRefused(
        "SignatureNotTrusted",
        `release ${release.version} is signed by "${signer}", which this machine's Secure Boot db does not hold: sign it with the cluster's keys (liken-stick release --sign DIR)`,
      );
  }
  if (release.rootfsSize > input.slot.size)
    throw new StagingRefused(
      "SlotTooSmall",
      `release ${release.version} needs ${release.rootfsSize} bytes, slot ${decision.slot} holds ${input.slot.size}: name a release that fits, or reinstall with a larger [layout] slot`,
    );
  // Last of the checks: it reads and hashes every file of the release.
  await verifyRelease(release).catch((error: Error) => {
    throw new StagingRefused("ReleaseInvalid", describe(error));
  });

  await applyEntryActions(
    input.esp,
    decision.remove.map((fileName) => ({ op: "remove" as const, fileName })),
    input.partUuids,
  );
  await forgetSlot(input.esp, decision.slot);

  const handle = await open(input.slot.device, "r+");
  try {
    let shown = -1;
    await writeImage(handle, `${releaseDir}/rootfs.img`, 0, {
      onProgress: (done, total) => {
        const quarter = Math.floor((done / total) * 4);
        if (quarter > shown) {
          shown = quarter;
          input.progress(`writing slot ${decision.slot}: ${quarter * 25}%`);
        }
      },
    });
    await handle.sync();
    const written = await hashRegion(handle, 0, release.rootfsSize);
    const expected = release.files["rootfs.img"]?.sha256;
    if (written !== expected)
      throw new StagingRefused(
        "VerifyFailed",
        `slot ${decision.slot} reads back sha256 ${written}, release ${release.version} says ${expected}`,
      );
  } finally {
    await handle.close();
  }
  await installSlotFiles(input.esp, decision.slot, release);
  await applyEntryActions(
    input.esp,
    [stagedEntry(decision.slot, decision.version)],
    input.partUuids,
  );
}

function describe(error: Error): string {
  return error instanceof LikenError ? error.message : (error.message.split("\n")[0] ?? "");
}
