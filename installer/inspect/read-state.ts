// The state partition's documents as text, read in place with debugfs (no mount, no root).
import { STATE_FILES } from "../../formats/state-partition.ts";
import { readExt4File } from "../../tools/debugfs.ts";

/** Each of STATE_FILES' documents but the boot record; null when it is not there. */
export type StateFiles = Readonly<
  Record<Exclude<keyof typeof STATE_FILES, "bootRecord">, string | null>
>;

/** Reads the ext4 filesystem at byte `offset` of `disk`; throws when it cannot be read. */
export async function readState(disk: string, offset: number): Promise<StateFiles> {
  const read = async (file: string) => (await readExt4File(disk, offset, `/${file}`)) ?? null;
  return {
    identity: await read(STATE_FILES.identity),
    spec: await read(STATE_FILES.spec),
    installerStatus: await read(STATE_FILES.installerStatus),
    machineStatus: await read(STATE_FILES.machineStatus),
  };
}
