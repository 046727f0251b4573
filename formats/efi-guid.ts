// EFI_GUID in memory (UEFI spec 2.10, appendix A): the first three fields little-endian, the
// last two as written. GPT entries, device paths, signature lists and variable names use it.

/** The 16 bytes of `uuid` (any case, with or without dashes). */
export function efiGuidBytes(uuid: string): Buffer {
  const hex = uuid.replaceAll("-", "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`"${uuid}" is not a GUID`);
  const b = Buffer.from(hex, "hex");
  b.subarray(0, 4).reverse();
  b.subarray(4, 6).reverse();
  b.subarray(6, 8).reverse();
  return b;
}

/** The GUID at `at` in `b`, upper case with dashes. */
export function efiGuidText(b: Uint8Array, at: number): string {
  const raw = Buffer.from(b.subarray(at, at + 16));
  raw.subarray(0, 4).reverse();
  raw.subarray(4, 6).reverse();
  raw.subarray(6, 8).reverse();
  const h = raw.toString("hex").toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
