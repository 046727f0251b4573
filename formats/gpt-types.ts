// GPT partition type GUIDs. The Discoverable Partitions Specification's where one fits
// (uapi-group.org/specifications/specs/discoverable_partitions_specification), liken's own
// otherwise. docs/install.md lists them all; changing one orphans every installed disk.
export const PARTITION_TYPES = {
  /** EFI System Partition (UEFI spec). */
  esp: "C12A7328-F81F-11D2-BA4B-00A0C93EC93B",
  /** DPS "Root Partition (x86-64)": both A/B slots hold a root filesystem image. */
  slot: "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709",
  /** DPS "Variable Data Partition": machine state that survives updates. */
  state: "4D21B016-B534-45C2-A9FB-5C16E091FD2D",
  /** liken's crash journal: no DPS type fits, so none of systemd's tools touch it. */
  journal: "8738DDE8-AEE2-43AC-9448-8C3F1717F4DE",
  /** liken storage roles (containerd, local volumes, ...), left empty for the release to use. */
  storage: "E9B9A502-AFB0-4994-B05A-9163E1970A24",
} as const;
