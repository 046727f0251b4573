// Where `unattended` may write the firmware's boot variables. On a booted liken stick that is
// the machine's efivarfs: the stick exists to install that machine. Anywhere else the
// default would be the running computer's own firmware (a workstation's Boot#### and
// BootNext, as root), so a person must name the place with --efivars. Both are checked
// before anything is installed or recorded: an install that cannot be made the next boot
// would leave a machine that boots the stick again.
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { LikenError } from "../common/errors.ts";
import { EFIVARS } from "../hardware/efi-vars.ts";

/** LIKEN_STICK=1: set by the stick's own `liken-stick` wrapper, as the menu reads it. */
export function onLikenStick(): boolean {
  return process.env.LIKEN_STICK === "1";
}

/** The efivarfs mount (or folder) the verb may write, checked to be a folder it can write. */
export async function requireFirmwareVariables(given: string | undefined): Promise<string> {
  if (given === undefined && !onLikenStick())
    throw new LikenError({
      kind: "refused",
      what: `this is not a booted liken stick, so unattended would write this computer's own boot entries, Boot#### and BootNext in ${EFIVARS}`,
      hint: "run it from the stick, or give --efivars DIR to name where the boot variables go, such as an empty folder to try it out",
    });
  const dir = given ?? EFIVARS;
  // A folder that is not there is refused below, with what to do.
  const found = await stat(dir).catch(() => undefined);
  const writable =
    found?.isDirectory() === true &&
    // A folder this user cannot write is refused below, with what to do.
    (await access(dir, constants.W_OK).then(
      () => true,
      () => false,
    ));
  if (writable) return dir;
  throw new LikenError({
    kind: "refused",
    what: !found
      ? `the firmware's variables are not at ${dir}: it does not exist`
      : found.isDirectory()
        ? `the firmware's variables at ${dir} cannot be written`
        : `the firmware's variables are not at ${dir}: it is not a folder`,
    hint:
      given === undefined
        ? "boot the stick in UEFI mode (its efivarfs is mounted there)"
        : "give --efivars a folder that exists and can be written: an efivarfs mount, or a folder to try it out",
  });
}
