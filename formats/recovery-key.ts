// The recovery key: 256 random bits a person types at the console when the TPM will not
// release the disks' key. Written as systemd-cryptenroll writes its recovery keys: 64
// "modhex" characters in 8 groups of 8, an alphabet that types the same on QWERTY, AZERTY
// and QWERTZ keyboards and holds no letter that reads as a digit (systemd's
// src/shared/recovery-key.c; Yubico's modhex). The text itself is the LUKS passphrase.

const MODHEX = "cbdefghijklnrtuv";
const GROUP = 8;
export const RECOVERY_KEY_BYTES = 32;

/** `bytes` (32) as the recovery key's text. */
export function recoveryKeyText(bytes: Uint8Array): string {
  if (bytes.length !== RECOVERY_KEY_BYTES) throw new RangeError("a recovery key is 32 bytes");
  let text = "";
  for (const byte of bytes) text += MODHEX[byte >> 4]! + MODHEX[byte & 15]!;
  return groups(text);
}

/**
 * What a person typed, as the recovery key's text: case, spaces and dashes do not matter.
 * Undefined when it cannot be one (a character outside the alphabet, or too few).
 */
export function normalizeRecoveryKey(typed: string): string | undefined {
  const chars = typed.toLowerCase().replace(/[\s-]/g, "");
  if (chars.length !== RECOVERY_KEY_BYTES * 2) return undefined;
  for (const c of chars) if (!MODHEX.includes(c)) return undefined;
  return groups(chars);
}

function groups(chars: string): string {
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += GROUP) out.push(chars.slice(i, i + GROUP));
  return out.join("-");
}
