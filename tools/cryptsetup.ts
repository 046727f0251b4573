// cryptsetup(8): LUKS2 on the state partition and the storage roles ([encryption] tpm =
// true; docs/design.md section 3). Every key goes in on standard input, and the one
// command that needs two keys at once (luksAddKey) takes the second from a file on a RAM
// filesystem, removed at once: no key is ever written to a disk but inside a LUKS header.
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, statfs, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LikenError } from "../common/errors.ts";
import { run } from "./exec.ts";

// A 32-byte key (the TPM's secret, the 256-bit recovery key) needs no slow key derivation:
// nobody guesses 256 bits, and argon2's memory cost would be a second of a small machine's
// boot. systemd-cryptenroll does the same for its TPM keyslots.
const KEYSLOT_KDF = ["--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000"];
// The stick and the release's root run no udev: libdevmapper makes the /dev/mapper node
// itself rather than wait for udev to (as the initramfs's dmsetup does).
const NO_UDEV = { DM_DISABLE_UDEV: "1" };
const LONG = { timeoutMs: 120_000, env: NO_UDEV };

/**
 * Where a volume's data begins: LUKS2's default header room (two metadata copies and the
 * keyslots), fixed so that what a volume holds is its partition less 16 MiB on every disk.
 */
export const LUKS_DATA_OFFSET = 16 * 1024 * 1024;

export interface LuksFormat {
  /** The key of keyslot 0. */
  readonly key: Uint8Array | string;
  /** The disk's logical sector size: the encryption's sector, so 4Kn disks take whole sectors. */
  readonly sectorSize: number;
  readonly label: string;
  /** Fixed, derived from the partition's: the header is the same on every run of an install. */
  readonly uuid: string;
}

export async function luksFormat(device: string, o: LuksFormat): Promise<void> {
  await run(
    "cryptsetup",
    [
      "luksFormat",
      "--batch-mode",
      ...["--type", "luks2", "--cipher", "aes-xts-plain64", "--key-size", "512"],
      ...["--hash", "sha256", ...KEYSLOT_KDF, "--key-slot", "0"],
      ...["--sector-size", String(o.sectorSize), "--label", o.label, "--uuid", o.uuid],
      // in 512-byte sectors, whatever the disk's
      ...["--offset", String(LUKS_DATA_OFFSET / 512)],
      "--key-file=-",
      device,
    ],
    { input: o.key, ...LONG },
  );
}

/** Adds `added` in keyslot `slot`, unlocking with `existing`. */
export async function luksAddKey(
  device: string,
  existing: Uint8Array | string,
  added: Uint8Array | string,
  slot: number,
): Promise<void> {
  await withRamFile(added, (file) =>
    run(
      "cryptsetup",
      [
        "luksAddKey",
        "--batch-mode",
        ...KEYSLOT_KDF,
        "--key-file=-",
        "--new-keyfile",
        file,
        "--new-key-slot",
        String(slot),
        device,
      ],
      { input: existing, ...LONG },
    ),
  );
}

/** Wipes keyslot `slot` (batch mode: no other key asked for). */
export async function luksKillSlot(device: string, slot: number): Promise<void> {
  await run("cryptsetup", ["luksKillSlot", "--batch-mode", device, String(slot)]);
}

/** Puts `json` in token `id`, replacing what was there. */
export async function luksImportToken(device: string, id: number, json: string): Promise<void> {
  await run(
    "cryptsetup",
    ["token", "import", "--token-id", String(id), "--token-replace", "--json-file=-", device],
    { input: json },
  );
}

/** Token `id`'s JSON, or undefined when the header has none there. */
export async function luksExportToken(device: string, id: number): Promise<string | undefined> {
  const result = await run("cryptsetup", ["token", "export", "--token-id", String(id), device], {
    okExitCodes: [1],
  });
  return result.exitCode === 0 ? result.stdout : undefined;
}

export async function isLuks(device: string): Promise<boolean> {
  const result = await run("cryptsetup", ["isLuks", "--type", "luks2", device], {
    okExitCodes: [1],
  });
  return result.exitCode === 0;
}

/**
 * Maps `device` at /dev/mapper/`name` with `key`. A wrong key is an answer (false), not an
 * error: the recovery prompt asks again.
 */
export async function luksOpen(
  device: string,
  name: string,
  key: Uint8Array | string,
): Promise<boolean> {
  const result = await run(
    "cryptsetup",
    ["open", "--type", "luks2", "--disable-external-tokens", "--key-file=-", device, name],
    // 2: no key slot opens with this key (cryptsetup(8) RETURN CODES).
    { input: key, okExitCodes: [2], ...LONG },
  );
  return result.exitCode === 0;
}

export async function luksClose(name: string): Promise<void> {
  await run("cryptsetup", ["close", name], { env: NO_UDEV });
}

export function mapperPath(name: string): string {
  return `/dev/mapper/${name}`;
}

// tmpfs and ramfs (statfs(2) f_type): the only places a key may touch as a file.
const RAM_FILESYSTEMS = new Set([0x01021994, 0x858458f6]);

async function withRamFile<T>(
  bytes: Uint8Array | string,
  use: (file: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "liken-key-"));
  try {
    if (!RAM_FILESYSTEMS.has((await statfs(dir)).type))
      throw new LikenError({
        kind: "failed",
        what: `${tmpdir()} is not a RAM filesystem, and a key may not be written to a disk`,
        hint: "run the installer from the stick, or point TMPDIR at a tmpfs",
      });
    const file = join(dir, randomUUID());
    await writeFile(file, bytes, { mode: 0o600 });
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
