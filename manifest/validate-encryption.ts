// [encryption]: the state partition and every storage role are LUKS2, their key sealed by
// the machine's TPM 2.0 (docs/design.md section 3, docs/install.md "Encryption").
import type { Check } from "./check.ts";
import { ENCRYPTION_KEYS, RECOVERY_PLACES } from "./keys.ts";
import { allowedHint } from "./suggest.ts";
import { isTable, type TomlTable } from "./toml-values.ts";
import type { EncryptionSettings } from "./types.ts";

/**
 * The settings; undefined when the table is absent or says tpm = false (nothing encrypted),
 * null when it has an error (reported).
 */
export function readEncryption(ck: Check, doc: TomlTable): EncryptionSettings | undefined | null {
  const table = doc.encryption;
  if (table === undefined) return undefined;
  if (!isTable(table)) {
    ck.wrongType(
      ["encryption"],
      table,
      "encryption",
      "a table",
      "write [encryption] on a line of its own, its keys below it",
    );
    return null;
  }
  ck.unknownKeys(table, ["encryption"], ENCRYPTION_KEYS, "in [encryption]");
  let ok = true;
  const tpm = table.tpm;
  if (typeof tpm !== "boolean") {
    if (tpm === undefined)
      ck.error(
        ck.tablePos(["encryption"]),
        "[encryption] has no tpm",
        "write tpm = true to seal the disks' key to this machine's TPM, or remove [encryption]",
      );
    else
      ck.wrongType(
        ["encryption", "tpm"],
        tpm,
        "tpm",
        "true or false",
        "write tpm = true (the state partition and storage roles encrypted) or tpm = false",
      );
    ok = false;
  }
  const recovery = table.recovery ?? "report";
  if (typeof recovery !== "string" || !(RECOVERY_PLACES as readonly string[]).includes(recovery)) {
    ck.error(
      ck.valuePos(["encryption", "recovery"]),
      `recovery ${JSON.stringify(recovery)} is not a place for the recovery key`,
      typeof recovery === "string"
        ? allowedHint(recovery, RECOVERY_PLACES)
        : 'write recovery = "report" (the unattended report) or recovery = "console" (the menu\'s screen)',
    );
    ok = false;
  }
  if (!ok) return null;
  return tpm ? { tpm: true, recovery: recovery as EncryptionSettings["recovery"] } : undefined;
}
