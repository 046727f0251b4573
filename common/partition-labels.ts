// The GPT names liken gives its partitions: `liken-<name>`, for the system partitions and
// for each storage role the manifest names. The installer writes them, the agent and
// `inspect` find partitions by them. The rule sits in common/ and not beside the disk's
// other contract in formats/ because the manifest, which may import only common/, refuses
// a role whose label would not fit or would be a system partition's.

const PREFIX = "liken-";

/** GPT partition names hold 36 UTF-16 characters. */
const GPT_NAME_LENGTH = 36;

/** The system disk's partitions, in their order on the disk; storage roles must not take these. */
export const SYSTEM_PARTITION_NAMES = ["esp", "a", "b", "journal", "state"] as const;
export type SystemPartitionName = (typeof SYSTEM_PARTITION_NAMES)[number];

/** The longest storage role whose label still fits a GPT name. */
export const STORAGE_ROLE_MAX_LENGTH = GPT_NAME_LENGTH - PREFIX.length;

/** The GPT name of a system partition or of a storage role's partition. */
export function partitionLabel(name: string): string {
  return `${PREFIX}${name}`;
}

export const SYSTEM_LABELS: readonly string[] = SYSTEM_PARTITION_NAMES.map(partitionLabel);

/** What follows `liken-` in a label; undefined for a label liken did not give. */
export function nameOfLabel(label: string): string | undefined {
  return label.startsWith(PREFIX) ? label.slice(PREFIX.length) : undefined;
}

/** The storage role a label names; undefined for a system partition's or a foreign label. */
export function storageRoleOf(label: string): string | undefined {
  return SYSTEM_LABELS.includes(label) ? undefined : nameOfLabel(label);
}
