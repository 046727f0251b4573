// The firmware's boot variables through efivarfs (the kernel's
// Documentation/filesystems/efivarfs.rst): each variable is a file NAME-VENDORGUID holding
// 4 bytes of attributes, then the value. Makes one disk boot once next: a Boot#### entry for
// its loader, and BootNext naming that entry. BootNext is non-volatile, so a power-off keeps
// it, and the firmware deletes it when it boots it, so the boot order is left as it was.
import { constants } from "node:fs";
import { open, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { LikenError } from "../common/errors.ts";
import { decodeLoadOption } from "../formats/efi-load-option.ts";

export const EFIVARS = "/sys/firmware/efi/efivars";
/** EFI_GLOBAL_VARIABLE: the vendor GUID of Boot####, BootOrder and BootNext. */
export const EFI_GLOBAL = "8be4df61-93ca-11d2-aa0d-00e098032b8c";
/** NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS, what the spec asks of boot variables. */
const NV_BS_RT = 7;

export interface BootNextRequest {
  /** The encoded EFI_LOAD_OPTION (formats/efi-load-option.ts). */
  readonly option: Uint8Array;
  readonly description: string;
  /** The loader partition's GUID: an entry already pointing at it is reused. */
  readonly partitionUuid: string;
  /** The efivarfs mount; tests give a folder. */
  readonly efivars?: string;
}

/** Writes (or reuses) the Boot#### entry and points BootNext at it; returns the entry's number. */
export async function bootNextInto(request: BootNextRequest): Promise<number> {
  const number = await bootEntryInto(request);
  await setBootNext(number, request.efivars);
  return number;
}

/** Points BootNext at the entry `number`. */
export async function setBootNext(number: number, efivars?: string): Promise<void> {
  const next = Buffer.alloc(2);
  next.writeUInt16LE(number);
  await writeVariable(efivars ?? EFIVARS, "BootNext", next);
}

/** Writes (or reuses) the Boot#### entry; returns its number. */
export async function bootEntryInto(request: BootNextRequest): Promise<number> {
  const dir = request.efivars ?? EFIVARS;
  const entries = await bootEntries(dir);
  const mine = entries.find((e) => {
    const decoded = decodeLoadOption(e.value);
    return (
      decoded?.description === request.description ||
      decoded?.partitionUuid === request.partitionUuid.toUpperCase()
    );
  });
  const number = mine?.number ?? firstFree(entries.map((e) => e.number));
  // Unchanged bytes are not written again: NVRAM wears, and some firmware runs out of room.
  if (!mine || !Buffer.from(mine.value).equals(Buffer.from(request.option))) {
    await writeVariable(dir, bootName(number), request.option);
  }
  return number;
}

/**
 * Puts the entries `numbers` into BootOrder in that order, right after the entry this boot
 * came from (BootCurrent: the stick stays where it was), or last when BootCurrent is not in
 * the order. Each appears once; the other entries keep their order. Unchanged, not written.
 */
export async function bootOrderWith(
  numbers: readonly number[],
  efivars?: string,
): Promise<number[]> {
  const dir = efivars ?? EFIVARS;
  const before = u16s(await readVariable(dir, "BootOrder"));
  const [current] = u16s(await readVariable(dir, "BootCurrent"));
  const rest = before.filter((n) => !numbers.includes(n));
  const at = current === undefined ? -1 : rest.indexOf(current);
  const order =
    at === -1
      ? [...rest, ...numbers]
      : [...rest.slice(0, at + 1), ...numbers, ...rest.slice(at + 1)];
  if (order.join() !== before.join()) {
    const bytes = Buffer.alloc(order.length * 2);
    for (const [i, n] of order.entries()) bytes.writeUInt16LE(n, i * 2);
    await writeVariable(dir, "BootOrder", bytes);
  }
  return order;
}

function u16s(value: Buffer | undefined): number[] {
  if (!value) return [];
  return Array.from({ length: Math.floor(value.length / 2) }, (_, i) => value.readUInt16LE(i * 2));
}

/** `Boot0003`: four upper-case hex digits (UEFI spec 2.10, section 3.1.1). */
export function bootName(number: number): string {
  return `Boot${number.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** A variable's value without its attributes; undefined when it does not exist. */
export async function readVariable(dir: string, name: string): Promise<Buffer | undefined> {
  const raw = await readFile(join(dir, `${name}-${EFI_GLOBAL}`)).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  });
  return raw && raw.length >= 4 ? raw.subarray(4) : undefined;
}

interface BootEntry {
  readonly number: number;
  readonly value: Buffer;
}

async function bootEntries(dir: string): Promise<BootEntry[]> {
  const names = await readdir(dir).catch((error: unknown) => {
    throw new LikenError({
      kind: "failed",
      what: `cannot read the firmware's variables at ${dir}: ${(error as Error).message}`,
      hint: "boot the stick in UEFI mode (efivarfs must be mounted there)",
      cause: error,
    });
  });
  const pattern = new RegExp(`^Boot([0-9A-F]{4})-${EFI_GLOBAL}$`);
  const entries: BootEntry[] = [];
  for (const name of names.sort()) {
    const match = pattern.exec(name);
    if (!match?.[1]) continue;
    const value = await readVariable(dir, name.slice(0, 8));
    if (value) entries.push({ number: Number.parseInt(match[1], 16), value });
  }
  return entries;
}

function firstFree(used: readonly number[]): number {
  const taken = new Set(used);
  for (let n = 0; n <= 0xffff; n++) if (!taken.has(n)) return n;
  throw new LikenError({
    kind: "failed",
    what: "the firmware has no free boot entry number (Boot0000 to BootFFFF are all taken)",
    hint: "delete unused boot entries in the firmware's setup, then boot the stick again",
  });
}

// One write(2) of attributes and value: efivarfs sets the variable from exactly one write.
// No O_TRUNC: an open that truncates fails on an immutable file. The kernel marks only
// variables it does not know immutable; Boot#### and BootNext are in its list, so they stay
// writable (checked on the stick's 6.1 kernel under OVMF), and an EPERM here is a surprise
// worth stopping for.
async function writeVariable(dir: string, name: string, value: Uint8Array): Promise<void> {
  const path = join(dir, `${name}-${EFI_GLOBAL}`);
  const bytes = Buffer.alloc(4 + value.length);
  bytes.writeUInt32LE(NV_BS_RT, 0);
  Buffer.from(value).copy(bytes, 4);
  try {
    await writeEfivarfs(path, bytes);
  } catch (error) {
    throw new LikenError({
      kind: "failed",
      what: `cannot write the firmware variable ${name}: ${(error as Error).message}`,
      hint: "remove the stick and boot the machine from its disk in the firmware's boot menu",
      cause: error,
    });
  }
}

/**
 * Sets the efivarfs variable at `path` to `bytes` (4 bytes of attributes, then the value)
 * in one write(2), as efivarfs takes it; no O_TRUNC, which fails on an immutable file.
 */
export async function writeEfivarfs(path: string, bytes: Uint8Array): Promise<void> {
  const file = await open(path, constants.O_WRONLY | constants.O_CREAT, 0o644);
  try {
    const { bytesWritten } = await file.write(bytes, 0, bytes.length);
    if (bytesWritten !== bytes.length)
      throw new Error(`wrote ${bytesWritten} of ${bytes.length} bytes`);
  } finally {
    await file.close();
  }
}
