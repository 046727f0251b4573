// The variables in an OVMF variable store file (OVMF_VARS*.fd, the VM's flash): a firmware
// volume (EDK2 PI spec, EFI_FIRMWARE_VOLUME_HEADER) holding an authenticated variable store
// (MdeModulePkg/Include/Guid/VariableFormat.h). Read to take Microsoft's certificates out of
// Debian's OVMF_VARS_4M.ms.fd and, in tests, to see what a machine's firmware enrolled.
import { efiGuidText } from "../formats/efi-guid.ts";

export interface StoredVariable {
  readonly name: string;
  readonly guid: string;
  readonly attributes: number;
  readonly data: Buffer;
}

const AUTHENTICATED_STORE = "AAF32C78-947B-439A-A180-2E144EC37792";
const START_ID = 0x55aa;
const HEADER = 60;
// VAR_ADDED, and VAR_ADDED while being replaced (VAR_IN_DELETED_TRANSITION cleared): both live.
const LIVE = new Set([0x3f, 0x3e]);

/** The live variables of a variable store file, in store order (a later copy wins). */
export function readVarStore(fd: Buffer): StoredVariable[] {
  if (fd.toString("latin1", 40, 44) !== "_FVH") throw new Error("not a firmware volume (no _FVH)");
  const store = fd.readUInt16LE(48);
  if (efiGuidText(fd, store) !== AUTHENTICATED_STORE)
    throw new Error("the firmware volume holds no authenticated variable store");
  const end = store + fd.readUInt32LE(store + 16);
  const found = new Map<string, StoredVariable>();
  for (let at = store + 28; at + HEADER <= end; ) {
    if (fd.readUInt16LE(at) !== START_ID) break;
    const state = fd[at + 2] as number;
    const nameSize = fd.readUInt32LE(at + 36);
    const dataSize = fd.readUInt32LE(at + 40);
    const guid = efiGuidText(fd, at + 44);
    const name = fd.toString("utf16le", at + HEADER, at + HEADER + nameSize).replace(/\0+$/, "");
    const data = Buffer.from(
      fd.subarray(at + HEADER + nameSize, at + HEADER + nameSize + dataSize),
    );
    if (LIVE.has(state))
      found.set(`${guid}/${name}`, { name, guid, attributes: fd.readUInt32LE(at + 4), data });
    else found.delete(`${guid}/${name}`);
    at += Math.ceil((HEADER + nameSize + dataSize) / 4) * 4;
  }
  return [...found.values()];
}
