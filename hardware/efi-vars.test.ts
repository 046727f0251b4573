import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeLoadOption, type LoadOption } from "../formats/efi-load-option.ts";
import { bootName, bootNextInto, bootOrderWith, EFI_GLOBAL } from "./efi-vars.ts";

const ESP_UUID = "3A1C4E2B-7D5F-4A6B-9C8D-0E1F2A3B4C5D";
const mine: LoadOption = {
  description: "liken testcluster/leader-1",
  partition: { number: 1, startLba: 2048, sizeLba: 524_288, uuid: ESP_UUID },
  path: "\\EFI\\BOOT\\BOOTX64.EFI",
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-efivars-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const file = (name: string) => join(dir, `${name}-${EFI_GLOBAL}`);

// A variable as efivarfs shows it: 4 bytes of attributes (NV|BS|RT), then the value.
async function put(name: string, value: Buffer): Promise<void> {
  await writeFile(file(name), Buffer.concat([Buffer.from([7, 0, 0, 0]), value]));
}

// Another disk's entry, as firmware or another system leaves them.
const other = encodeLoadOption({
  description: "UEFI Misc Device",
  partition: { ...mine.partition, uuid: "9E2F6B1A-0C3D-4E5F-8A7B-6C5D4E3F2A1B" },
  path: "\\EFI\\BOOT\\BOOTX64.EFI",
});

function request(option: LoadOption = mine) {
  return {
    option: encodeLoadOption(option),
    description: option.description,
    partitionUuid: option.partition.uuid,
    efivars: dir,
  };
}

describe("BootNext through efivarfs", () => {
  it("writes a new entry in the first free number and BootNext naming it", async () => {
    await put("Boot0000", other);
    await put("Boot0002", other);
    await put("BootOrder", Buffer.from([0, 0, 2, 0]));

    expect(await bootNextInto(request())).toBe(1);

    const entry = await readFile(file("Boot0001"));
    expect(entry.subarray(0, 4).toString("hex")).toBe("07000000");
    expect(entry.subarray(4)).toEqual(encodeLoadOption(mine));
    expect((await readFile(file("BootNext"))).toString("hex")).toBe("07000000" + "0100");
    // The boot order is the firmware's: the stick stays first.
    expect((await readFile(file("BootOrder"))).toString("hex")).toBe("07000000" + "00000200");
  });

  it("reuses liken's entry for the disk and leaves it unwritten when it is unchanged", async () => {
    await put("Boot0000", other);
    await put("Boot0004", encodeLoadOption(mine));
    const before = await stat(file("Boot0004"));
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(await bootNextInto(request())).toBe(4);

    expect((await stat(file("Boot0004"))).mtimeMs).toBe(before.mtimeMs);
    expect((await readFile(file("BootNext"))).subarray(4).readUInt16LE()).toBe(4);
    expect((await readdir(dir)).sort()).toEqual(
      ["Boot0000", "Boot0004", "BootNext"].map((n) => `${n}-${EFI_GLOBAL}`),
    );
  });

  it("rewrites liken's entry in place when the disk's ESP moved (a reinstall)", async () => {
    await put("Boot000A", encodeLoadOption(mine));
    const moved = {
      ...mine,
      partition: { ...mine.partition, uuid: "11111111-2222-4333-8444-555555555555" },
    };

    expect(await bootNextInto(request(moved))).toBe(10);

    expect((await readFile(file("Boot000A"))).subarray(4)).toEqual(encodeLoadOption(moved));
  });

  it("reuses an entry that points at the same ESP under another description", async () => {
    await put("Boot0003", encodeLoadOption({ ...mine, description: "liken (renamed)" }));
    expect(await bootNextInto(request())).toBe(3);
  });

  it("ignores other vendors' variables and values that are not load options", async () => {
    await writeFile(join(dir, "Boot0000-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"), "x");
    await put("Boot0000", Buffer.from("not a load option"));
    expect(await bootNextInto(request())).toBe(1);
  });

  it("names entries with four upper-case hex digits", () => {
    expect([0, 10, 0xbeef].map(bootName)).toEqual(["Boot0000", "Boot000A", "BootBEEF"]);
  });

  it("says the firmware's variables are missing when efivarfs is not there", async () => {
    await expect(bootNextInto({ ...request(), efivars: join(dir, "none") })).rejects.toThrow(
      /cannot read the firmware's variables at .*none.*\(boot the stick in UEFI mode/,
    );
  });
});

describe("BootOrder through efivarfs", () => {
  const order = async () => (await readFile(file("BootOrder"))).toString("hex").slice(8);

  it("puts the entries right after the one this boot came from, each once", async () => {
    await put("BootOrder", Buffer.from([3, 0, 0, 0, 5, 0, 2, 0]));
    await put("BootCurrent", Buffer.from([0, 0]));
    expect(await bootOrderWith([5, 7], dir)).toEqual([3, 0, 5, 7, 2]);
    expect(await order()).toBe("0300000005000700" + "0200");
  });

  it("appends them when the current boot is not in the order, and leaves an unchanged order unwritten", async () => {
    await put("BootOrder", Buffer.from([3, 0, 5, 0, 7, 0]));
    expect(await bootOrderWith([5, 7], dir)).toEqual([3, 5, 7]);
    const before = await stat(file("BootOrder"));
    await new Promise((r) => setTimeout(r, 20));
    await bootOrderWith([5, 7], dir);
    expect((await stat(file("BootOrder"))).mtimeMs).toBe(before.mtimeMs);
  });

  it("makes an order when the firmware has none", async () => {
    expect(await bootOrderWith([1, 2], dir)).toEqual([1, 2]);
    expect(await order()).toBe("01000200");
  });
});
