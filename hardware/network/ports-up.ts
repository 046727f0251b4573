// A machine's NICs under the names the manifest uses, and its declared ports up with their
// carrier awaited (docs/rollback.md, Modules and ports at boot): what the boot agent does
// at every boot, and the stick before it brings up a declared network for its report.
// Each step says what it did through `step`, the caller's console.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PORT_WAIT_SECONDS } from "../../formats/boot-interface.ts";
import { renameLink, setLinkDown, setLinkUp } from "../../tools/ip.ts";
import { netNames } from "../net-names.ts";

/** The longest a boot waits for a declared port's carrier; every port waits at once. */
export const PORT_WAIT_MS = PORT_WAIT_SECONDS * 1000;

export type PortOutcome =
  | { readonly port: string; readonly kind: "carrier"; readonly seconds: number }
  | { readonly port: string; readonly kind: "no-carrier"; readonly seconds: number }
  | { readonly port: string; readonly kind: "missing" };

/** The console line for one port waited for. */
export function portLine(o: PortOutcome): string {
  if (o.kind === "carrier") return `port ${o.port}: carrier after ${o.seconds.toFixed(1)} s`;
  if (o.kind === "no-carrier")
    return `port ${o.port}: no carrier after ${o.seconds.toFixed(1)} s; connect the cable, or remove the port from the manifest`;
  return `port ${o.port}: no such interface on this machine; correct its name in the manifest, or check its NIC's driver with the hardware report`;
}

/** Every NIC under its predictable name; the kernel's when udev would keep it. */
export async function namePredictably(step: (line: string) => void): Promise<string[]> {
  // No /sys/class/net: no NIC to name, and each declared port is reported missing.
  const names = await readdir("/sys/class/net").catch(() => [] as string[]);
  const taken = new Set(names);
  const present: string[] = [];
  for (const kernelName of names) {
    // No device uevent: a virtual interface (lo, a bridge), which udev does not rename.
    const hasDevice = await readFile(join("/sys/class/net", kernelName, "device", "uevent"))
      .then(() => true)
      .catch(() => false);
    if (!hasDevice) continue;
    const { predictable } = await netNames("/", kernelName);
    if (predictable === null || predictable === kernelName || taken.has(predictable)) {
      present.push(kernelName);
      continue;
    }
    try {
      await renameWhileDown(kernelName, predictable);
      taken.add(predictable);
      present.push(predictable);
      step(`network interface ${kernelName} is ${predictable}`);
    } catch (error) {
      present.push(kernelName);
      step(`network interface ${kernelName} keeps its name: ${(error as Error).message}`);
    }
  }
  return present;
}

// The kernel renames only a link that is down (EBUSY otherwise). At boot every NIC is
// down; on the stick its init brought each up for the hardware report, and it goes up again.
async function renameWhileDown(from: string, to: string): Promise<void> {
  // No flags to read: taken for down, as at boot; a refused rename says why.
  const flags = await readFile(join("/sys/class/net", from, "flags"), "utf8").catch(() => "0");
  const up = (Number.parseInt(flags.trim(), 16) & IFF_UP) !== 0;
  if (up) await setLinkDown(from);
  await renameLink(from, to);
  if (up) await setLinkUp(to);
}

const IFF_UP = 0x1;

/** Each declared port up and its carrier awaited, all at once; one line each to `step`. */
export async function awaitPorts(
  ports: readonly string[],
  present: readonly string[],
  step: (line: string) => void,
): Promise<PortOutcome[]> {
  return Promise.all(
    ports.map(async (port): Promise<PortOutcome> => {
      if (!present.includes(port)) {
        const outcome = { port, kind: "missing" } as const;
        step(portLine(outcome));
        return outcome;
      }
      const started = Date.now();
      await setLinkUp(port).catch((error: Error) =>
        step(`port ${port} does not come up: ${error.message.split("\n")[0]}`),
      );
      let carrier = await hasCarrier(port);
      while (!carrier && Date.now() - started < PORT_WAIT_MS) {
        await sleep(200);
        carrier = await hasCarrier(port);
      }
      const seconds = (Date.now() - started) / 1000;
      const outcome: PortOutcome = { port, kind: carrier ? "carrier" : "no-carrier", seconds };
      step(portLine(outcome));
      return outcome;
    }),
  );
}

async function hasCarrier(port: string): Promise<boolean> {
  // EINVAL while the link is down: no carrier
  return readFile(join("/sys/class/net", port, "carrier"), "utf8").then(
    (t) => t.trim() === "1",
    () => false,
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
