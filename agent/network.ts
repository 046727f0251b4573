// The boot's drivers, NIC names and ports, in the root (docs/rollback.md, Modules and
// ports at boot): (1) the modules the manifest declares, with their parameters, before any
// driver loads by device; (2) the drivers of the devices present, by modalias; (3) each NIC
// renamed to the name systemd-udevd would give it (hardware/net-names.ts), so a port is
// found by the name the manifest uses; (4) every declared port up, waited for at most
// PORT_WAIT_MS for carrier, all at once; (5) the declared network built on the ports
// (hardware/network/): bonds, VLANs, MTUs, addresses, routes, DHCP and nameservers.
import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { orNull } from "../common/or-null.ts";
import { INITRAMFS_MODULES } from "../formats/boot-interface.ts";
import type { BootIdentity, IdentityModule } from "../formats/identity.ts";
import type { NetworkStatus } from "../formats/machine-status.ts";
import { STATE_FILES } from "../formats/state-partition.ts";
import { readKernelLog } from "../hardware/kernel-log.ts";
import { bringUpNetwork } from "../hardware/network/bring-up.ts";
import { networkStatus } from "../hardware/network/observe.ts";
import { awaitPorts, namePredictably, type PortOutcome } from "../hardware/network/ports-up.ts";
import { loadByModalias, loadModule } from "../tools/modprobe.ts";
import {
  type ConditionPart,
  type ModuleFacts,
  moduleName,
  parameterNames,
} from "./declared-modules.ts";
import { step } from "./machine.ts";
import { NO_INTERFACES, networkReadyCondition } from "./network-ready.ts";

async function loadedModules(): Promise<Set<string>> {
  // Without /proc/modules every declared module is loaded again: modprobe skips loaded ones.
  const text = await readFile("/proc/modules", "utf8").catch(() => "");
  return new Set(
    text
      .split("\n")
      .map((l) => l.split(" ")[0] ?? "")
      .filter((n) => n !== ""),
  );
}

async function builtinModules(): Promise<Set<string>> {
  const release = (await readFile("/proc/sys/kernel/osrelease", "utf8")).trim();
  // A kernel without modules.builtin: a declared module is taken for a loadable one.
  const text = await readFile(`/lib/modules/${release}/modules.builtin`, "utf8").catch(() => "");
  return new Set(
    text
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => moduleName((l.split("/").pop() ?? "").replace(/\.ko$/, ""))),
  );
}

/** (1) Loads each declared module with its parameters and reads back what the kernel holds. */
export async function loadDeclaredModules(
  declared: readonly IdentityModule[],
): Promise<ModuleFacts[]> {
  if (declared.length === 0) return [];
  const [atStart, builtin, byInitramfs] = await Promise.all([
    loadedModules(),
    builtinModules(),
    // No list from the initramfs: it loaded none of the declared modules.
    readFile(INITRAMFS_MODULES, "utf8").then(
      (t) => new Set(t.split("\n").map((l) => l.trim())),
      () => new Set<string>(),
    ),
  ]);
  const facts: ModuleFacts[] = [];
  for (const module of declared) {
    const name = moduleName(module.name);
    let loadedBefore: string | null = null;
    let loadError: string | null = null;
    if (atStart.has(name))
      loadedBefore = byInitramfs.has(name)
        ? "the initramfs loads it for the boot path: disks, the verified root and watchdogs"
        : "the kernel loaded it before the boot agent started";
    else if ((await loadedModules()).has(name))
      loadedBefore = `a module declared before it needs it; declare ${name} first`;
    else if (!builtin.has(name)) {
      const result = await loadModule(
        name,
        module.parameters.split(/\s+/).filter((w) => w),
      );
      loadError = result.ok ? null : result.error;
    }
    facts.push({
      module,
      builtin: builtin.has(name),
      loadedBefore,
      loadError,
      readBack: await readParameters(name, parameterNames(module.parameters)),
    });
  }
  echoParameterWarnings(declared.map((m) => moduleName(m.name)));
  return facts;
}

async function readParameters(module: string, names: readonly string[]) {
  const dir = join("/sys/module", module, "parameters");
  // A module without parameters folder has none to read back: each is reported as not applied.
  const present = await readdir(dir).catch(() => [] as string[]);
  const out: Record<string, string> = {};
  for (const name of names) {
    if (!present.includes(name)) continue; // misspelt, or registered without a readable file
    const value = await readFile(join(dir, name), "utf8").catch(() => null);
    if (value !== null) out[name] = value.trim();
  }
  return out;
}

// The kernel says "e1000e: unknown parameter 'x' ignored" once, at the load, at warning
// level, which a quiet console does not show: the console shows it here.
function echoParameterWarnings(modules: readonly string[]): void {
  const lines = readKernelLog("unknown parameter");
  for (const line of lines)
    if (/unknown parameter .* ignored/.test(line) && modules.some((m) => line.startsWith(`${m}:`)))
      step(`the kernel said: ${line}`);
}

/** (2) The drivers of every device present, by modalias; twice, for devices a driver adds. */
export async function loadDrivers(): Promise<void> {
  for (let round = 0; round < 2; round++) await loadByModalias(modaliases());
}

// Synchronous: sysfs answers from memory, and a few hundred reads each through a promise
// and the thread pool took half a second of the boot under emulation.
function modaliases(): string[] {
  const found = new Set<string>();
  for (const bus of orNull(() => readdirSync("/sys/bus")) ?? []) {
    const devices = join("/sys/bus", bus, "devices");
    for (const device of orNull(() => readdirSync(devices)) ?? []) {
      // A device without a modalias asks for no driver.
      const alias = orNull(() => readFileSync(join(devices, device, "modalias"), "utf8"))?.trim();
      if (alias) found.add(alias);
    }
  }
  return [...found].sort();
}

/** (3) Every NIC under its predictable name; the kernel's when udev would keep it. */
export function nameNics(): Promise<string[]> {
  return namePredictably(step);
}

/** (4) Each declared port up and its carrier awaited, all at once; one console line each. */
export function waitForPorts(
  ports: readonly string[],
  present: readonly string[],
): Promise<PortOutcome[]> {
  return awaitPorts(ports, present, step);
}

/**
 * (5) The declared network, after the ports' wait: one console line per interface, and
 * status.network with NetworkReady. Never throws: the boot goes on whatever it finds.
 */
export async function bringUpDeclaredNetwork(
  identity: Pick<BootIdentity, "network" | "networkError">,
): Promise<{ applied: NetworkStatus | null; networkReady: ConditionPart }> {
  const declared = identity.network;
  if (identity.networkError !== null) {
    const file = STATE_FILES.identity;
    const message = `${file}'s network does not read (${identity.networkError}), so no interface is configured; correct ${file} on the state partition, or install the machine again`;
    step(message);
    return {
      applied: null,
      networkReady: { status: "True", reason: "NoInterfacesDeclared", message },
    };
  }
  if (declared.interfaces.length === 0 && declared.nameservers.length === 0)
    return { applied: null, networkReady: NO_INTERFACES };
  try {
    const up = await bringUpNetwork(declared);
    for (const line of up.lines) step(line);
    return {
      applied: networkStatus(up.network),
      networkReady: networkReadyCondition(up.plan, up.applied, up.network),
    };
  } catch (error) {
    const message = `the declared network was not applied: ${(error as Error).message.split("\n")[0]}; check that the release's root carries iproute2's ip`;
    step(message);
    return { applied: null, networkReady: { status: "False", reason: "StepFailed", message } };
  }
}
