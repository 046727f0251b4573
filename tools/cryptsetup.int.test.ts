// cryptsetup on a partition of a disk image, through a loop device over its region, as the
// installer formats one (the host kernel has no dm-crypt: opening is proven in QEMU,
// test/qemu/encryption.test.ts).
import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTpmToken, tpmTokenJson } from "../formats/luks-token.ts";
import {
  isLuks,
  LUKS_DATA_OFFSET,
  luksAddKey,
  luksExportToken,
  luksFormat,
  luksImportToken,
  luksKillSlot,
} from "./cryptsetup.ts";
import { run } from "./exec.ts";
import { attachLoop, detachLoop } from "./losetup.ts";

const MIB = 1024 * 1024;
const sealed = { bank: "sha256", pcrs: [7], public: "cHVi", private: "cHJpdg==" } as const;

describe("cryptsetup on a partition's region", () => {
  let dir: string;
  let disk: string;
  let loop: string;
  const secret = Buffer.alloc(32, 7);
  const recovery = "cbdefghi-jklnrtuv-cbdefghi-jklnrtuv-cbdefghi-jklnrtuv-cbdefghi-jklnrtuv";

  beforeAll(async () => {
    // /dev/shm: the keys' one file (luksAddKey's new key) must be on a RAM filesystem.
    dir = await mkdtemp("/dev/shm/liken-luks-");
    process.env.TMPDIR = dir;
    disk = join(dir, "disk.img");
    await writeFile(disk, "");
    await truncate(disk, 64 * MIB);
    loop = await attachLoop(disk, { offset: 8 * MIB, size: 32 * MIB, sectorSize: 512 });
    await luksFormat(loop, {
      key: secret,
      sectorSize: 512,
      label: "liken-state",
      uuid: "4c494b45-0000-4000-8000-000000000005",
    });
  });
  afterAll(async () => {
    if (loop) await detachLoop(loop);
    delete process.env.TMPDIR;
    await rm(dir, { recursive: true, force: true });
  });

  it("writes a LUKS2 header inside the region only, its data 16 MiB in", async () => {
    expect(await isLuks(loop)).toBe(true);
    const bytes = await readFile(disk);
    expect(bytes.subarray(8 * MIB, 8 * MIB + 6)).toEqual(Buffer.from("LUKS\xba\xbe", "latin1"));
    expect(bytes.subarray(0, 8 * MIB).every((b) => b === 0)).toBe(true);
    expect(bytes.subarray(40 * MIB).every((b) => b === 0)).toBe(true);
    const dump = (await run("cryptsetup", ["luksDump", loop])).stdout;
    expect(dump).toMatch(new RegExp(`offset:\\s+${LUKS_DATA_OFFSET} \\[bytes\\]`));
    expect(dump).toMatch(/Label:\s+liken-state/);
    expect(dump).toMatch(/cipher:\s+aes-xts-plain64/);
  });

  it("opens keyslot 1 with the recovery key once added, and token 0 reads back", async () => {
    await luksAddKey(loop, secret, recovery, 1);
    await luksImportToken(loop, 0, tpmTokenJson(sealed));
    const test = (key: string | Buffer, slot: number) =>
      run(
        "cryptsetup",
        ["open", "--test-passphrase", "--key-slot", String(slot), "--key-file=-", loop],
        { input: key, okExitCodes: [2] },
      ).then((r) => r.exitCode === 0);
    expect(await test(secret, 0)).toBe(true);
    expect(await test(recovery, 1)).toBe(true);
    expect(await test(recovery, 0)).toBe(false);
    expect(parseTpmToken((await luksExportToken(loop, 0))!)).toEqual(sealed);
    expect(await luksExportToken(loop, 3)).toBeUndefined();
    // The key file luksAddKey used is gone.
    expect((await run("ls", ["-A", dir])).stdout.trim()).toBe("disk.img");
  });

  it("kills a keyslot without asking for another key", async () => {
    await luksKillSlot(loop, 0);
    const dump = (await run("cryptsetup", ["luksDump", loop])).stdout;
    expect(dump).not.toMatch(/^\s+0: luks2/m);
    expect(dump).toMatch(/^\s+1: luks2/m);
  });
});
