// Who this machine is, as the firmware says (SMBIOS through sysfs): read without any tool,
// and "unknown" for what is missing, empty or unreadable (product_serial is root-only).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Identity } from "./types.ts";

export const DMI_DIR = "/sys/class/dmi/id";

export async function readIdentity(dir = DMI_DIR): Promise<Identity> {
  const [vendor, model, serial] = await Promise.all(
    ["sys_vendor", "product_name", "product_serial"].map((f) => readField(join(dir, f))),
  );
  return { vendor: vendor as string, model: model as string, serial: serial as string };
}

async function readField(file: string): Promise<string> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.trim() || "unknown";
}
