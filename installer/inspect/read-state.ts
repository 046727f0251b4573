// The state partition's documents, read in place with debugfs (no mount, no root).
import { readExt4File } from "../../tools/debugfs.ts";
import { STATE_FILES } from "../state.ts";

/** Where the installed machine's boot agent writes its status document (docs/rollback.md). */
export const MACHINE_STATUS_FILE = "status/status.json";

export interface StateFiles {
  readonly identity: string | null;
  readonly spec: string | null;
  readonly installer: string | null;
  readonly status: string | null;
}

/** Reads the ext4 filesystem at byte `offset` of `disk`; throws when it cannot be read. */
export async function readState(disk: string, offset: number): Promise<StateFiles> {
  const read = async (file: string) => (await readExt4File(disk, offset, `/${file}`)) ?? null;
  return {
    identity: await read(STATE_FILES.identity),
    spec: await read(STATE_FILES.spec),
    installer: await read(STATE_FILES.installerStatus),
    status: await read(MACHINE_STATUS_FILE),
  };
}
