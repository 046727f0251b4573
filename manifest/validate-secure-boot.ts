// [secure_boot]: the cluster's machines boot with Secure Boot on, so every image built from
// this manifest must be signed (image --sign), and the stick enrolls the cluster's keys.
import type { Check } from "./check.ts";
import { ENROLL_MODES, SECURE_BOOT_KEYS } from "./keys.ts";
import { allowedHint } from "./suggest.ts";
import { isTable, type TomlTable } from "./toml-values.ts";
import type { SecureBootSettings } from "./types.ts";

/** The settings; undefined when the table is absent, null when it has an error (reported). */
export function readSecureBoot(ck: Check, doc: TomlTable): SecureBootSettings | undefined | null {
  const table = doc.secure_boot;
  if (table === undefined) return undefined;
  if (!isTable(table)) {
    ck.wrongType(
      ["secure_boot"],
      table,
      "secure_boot",
      "a table",
      "write [secure_boot] on a line of its own, its keys below it",
    );
    return null;
  }
  ck.unknownKeys(table, ["secure_boot"], SECURE_BOOT_KEYS, "in [secure_boot]");
  let ok = true;
  const keep = table.keep_microsoft;
  if (keep !== undefined && typeof keep !== "boolean") {
    ck.wrongType(
      ["secure_boot", "keep_microsoft"],
      keep,
      "keep_microsoft",
      "true or false",
      "write keep_microsoft = true (add-in cards' option ROMs are signed by Microsoft) or false, or leave it out for the stick to decide on each machine",
    );
    ok = false;
  }
  const enroll = table.enroll ?? "force";
  if (typeof enroll !== "string" || !(ENROLL_MODES as readonly string[]).includes(enroll)) {
    ck.error(
      ck.valuePos(["secure_boot", "enroll"]),
      `enroll ${JSON.stringify(enroll)} is not an enrollment mode`,
      typeof enroll === "string"
        ? allowedHint(enroll, ENROLL_MODES)
        : 'write enroll = "force" or enroll = "manual"',
    );
    ok = false;
  }
  return ok
    ? { keepMicrosoft: keep as boolean | undefined, enroll: enroll as SecureBootSettings["enroll"] }
    : null;
}
