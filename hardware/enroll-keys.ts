// Writes the cluster's Secure Boot keys into a machine in setup mode through efivarfs, as
// sbctl and efitools' efi-updatevar do: one write(2) of the 4 attribute bytes, then the
// .auth update (EFI_VARIABLE_AUTHENTICATION_2 and the new value), which the firmware checks
// as SetVariable() would. db, then KEK, then PK: writing PK ends setup mode, so a failure
// before it leaves the machine in setup mode, where the stick can try again.
import { join } from "node:path";
import { LikenError } from "../common/errors.ts";
import { authenticatedValue, ENROLLMENT_ORDER } from "../formats/enrollment-files.ts";
import { commonName } from "../formats/pe-signer.ts";
import {
  decodeSignatureLists,
  type KeyVariable,
  VARIABLE_GUIDS,
} from "../formats/secure-boot-vars.ts";
import { writeEfivarfs } from "./efi-vars.ts";

// NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS | TIME_BASED_AUTHENTICATED_WRITE_ACCESS:
// the attributes the updates were signed with (formats/secure-boot-vars.ts).
const AUTHENTICATED_NV_BS_RT = 0x27;

/** Each variable's .auth update; db in the form the plan chose. */
export type EnrollmentUpdates = Readonly<Record<KeyVariable, Buffer>>;

/** The certificates' common names each update sets, for the console. */
export function enrolledNames(updates: EnrollmentUpdates): Record<KeyVariable, string[]> {
  const names = (auth: Buffer) =>
    decodeSignatureLists(authenticatedValue(auth)).map((e) => commonName(e.certificate));
  return { PK: names(updates.PK), KEK: names(updates.KEK), db: names(updates.db) };
}

/** Writes db, KEK and PK into `efivars`; `written` hears of each once the firmware took it. */
export async function enrollKeys(
  efivars: string,
  updates: EnrollmentUpdates,
  written: (name: KeyVariable) => void,
): Promise<void> {
  const done: KeyVariable[] = [];
  for (const name of ENROLLMENT_ORDER) {
    const bytes = Buffer.alloc(4 + updates[name].length);
    bytes.writeUInt32LE(AUTHENTICATED_NV_BS_RT, 0);
    updates[name].copy(bytes, 4);
    try {
      await writeEfivarfs(join(efivars, `${name}-${VARIABLE_GUIDS[name].toLowerCase()}`), bytes);
    } catch (error) {
      throw new LikenError({
        kind: "failed",
        what: `the firmware did not take ${name} (${(error as Error).message}); ${
          done.length ? `${done.join(" and ")} went in before it, ` : ""
        }PK did not, so the machine is still in setup mode`,
        hint: "clear the Secure Boot keys in the firmware's setup (setup mode) and boot the stick again, or enroll them from the stick's ESP there (docs/image.md, Secure Boot)",
        cause: error,
      });
    }
    done.push(name);
    written(name);
  }
}
