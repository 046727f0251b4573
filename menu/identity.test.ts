import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { readIdentity } from "./identity.ts";

it("reads vendor, model and serial, and says unknown for what is missing or empty", async () => {
  const dir = await mkdtemp(join(tmpdir(), "liken-dmi-"));
  try {
    await writeFile(join(dir, "sys_vendor"), "Supermicro\n");
    await writeFile(join(dir, "product_name"), "   \n");
    expect(await readIdentity(dir)).toEqual({
      vendor: "Supermicro",
      model: "unknown",
      serial: "unknown",
    });
    await writeFile(join(dir, "product_name"), "SYS-1029P\n");
    await writeFile(join(dir, "product_serial"), "S123\n");
    expect(await readIdentity(dir)).toEqual({
      vendor: "Supermicro",
      model: "SYS-1029P",
      serial: "S123",
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it("says unknown for a placeholder the firmware left, as the hardware report leaves it out", async () => {
  const dir = await mkdtemp(join(tmpdir(), "liken-dmi-"));
  try {
    await writeFile(join(dir, "sys_vendor"), "To be filled by O.E.M.\n");
    await writeFile(join(dir, "product_name"), "Default string\n");
    await writeFile(join(dir, "product_serial"), "System Serial Number\n");
    expect(await readIdentity(dir)).toEqual({
      vendor: "unknown",
      model: "unknown",
      serial: "unknown",
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
