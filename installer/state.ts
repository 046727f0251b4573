// Builds the state partition as an ext4 image file: who this machine is, the spec naming
// the installed release, and the installer's status document. The installed machine's
// boot agent reads and extends it.
import { mkdir, rm, truncate, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { partitionLabel } from "../common/partition-labels.ts";
import { rfc3339FromSeconds } from "../common/time.ts";
import { type Identity, identityText } from "../formats/identity.ts";
import { type InstallerStatus, installerStatusText } from "../formats/installer-status.ts";
import { specDocumentText } from "../formats/spec-document.ts";
import { STATE_FILES } from "../formats/state-partition.ts";
import type { Machine, Manifest } from "../manifest/types.ts";
import { makeExt4 } from "../tools/mkfs.ts";

export interface StateInput {
  readonly image: string;
  readonly size: number;
  readonly workDir: string;
  readonly manifest: Manifest;
  readonly machine: Machine;
  readonly installId: string;
  readonly version: string;
  readonly installedAt: number;
  readonly partUuid: string;
  readonly status: InstallerStatus;
  /** The disk's logical sector size: ext4's blocks may not be smaller (mkfs picks 1 KiB here). */
  readonly sectorSize: number;
  /** Both members of a mirrored system disk; absent on one disk. */
  readonly mirror?: Identity["mirror"];
}

export function identityDocument(
  input: Omit<StateInput, "image" | "size" | "workDir" | "partUuid" | "status">,
): Identity {
  return {
    cluster: input.manifest.cluster,
    machine: input.machine.name,
    role: input.machine.role,
    installId: input.installId,
    installedRelease: input.version,
    installedAt: rfc3339FromSeconds(input.installedAt),
    ports: input.machine.ports,
    modules: input.machine.modules,
    network: { interfaces: input.machine.interfaces, nameservers: input.machine.nameservers },
    rebootPolicy: input.machine.reboot_policy,
    storage: input.manifest.storage.map((s) => ({ role: s.role, label: partitionLabel(s.role) })),
    ...(input.mirror ? { mirror: input.mirror } : {}),
  };
}

export async function buildState(input: StateInput): Promise<void> {
  const root = join(input.workDir, "state-root");
  await rm(root, { recursive: true, force: true });
  await mkdir(join(root, dirname(STATE_FILES.installerStatus)), { recursive: true, mode: 0o750 });
  await writeFile(join(root, STATE_FILES.identity), identityText(identityDocument(input)), {
    mode: 0o644,
  });
  await writeFile(join(root, STATE_FILES.spec), specDocumentText(input.version), { mode: 0o644 });
  await writeFile(join(root, STATE_FILES.installerStatus), installerStatusText(input.status), {
    mode: 0o640,
  });
  await rm(input.image, { force: true });
  await writeFile(input.image, "");
  await truncate(input.image, input.size);
  await makeExt4(input.image, {
    label: partitionLabel("state"),
    uuid: input.partUuid.toLowerCase(),
    fromDir: root,
    epoch: input.installedAt,
    ...(input.sectorSize > 1024 ? { blockSize: input.sectorSize } : {}),
  });
}
