// One [[machines]] entry: its name, role, ports, network, modules, system disk and reboot
// policy.

import { ARCHES, type Arch, isArch } from "../common/arch.ts";
import {
  dnsLabelHint,
  INTERFACE_NAME_RULE,
  interfaceNameProblem,
  isDnsLabel,
} from "../common/names.ts";
import type { Check } from "./check.ts";
import { MACHINE_KEYS, MACHINE_ROLES, REBOOT_POLICIES } from "./keys.ts";
import type { KeyPath } from "./locate.ts";
import { allowedHint } from "./suggest.ts";
import type { TomlTable } from "./toml-values.ts";
import type { DiskSelector, Machine, MachineRole, RebootPolicy } from "./types.ts";
import { readDiskSelector } from "./validate-disk.ts";
import { readMatch } from "./validate-match.ts";
import { readModules } from "./validate-modules.ts";
import { readNetwork } from "./validate-network.ts";

export function readMachine(ck: Check, entry: TomlTable, path: KeyPath): Machine | undefined {
  ck.unknownKeys(entry, path, MACHINE_KEYS, "in [[machines]]");
  const name = readName(ck, entry, path);
  const role = readRole(ck, entry, path);
  const ports = readPorts(ck, entry, path);
  const network = readNetwork(ck, entry, path, ports);
  const modules = readModules(ck, entry, path);
  const system_disk: DiskSelector | null | undefined =
    entry.system_disk === undefined ? undefined : readDiskSelector(ck, entry, path);
  const reboot_policy = readRebootPolicy(ck, entry, path);
  const match = entry.match === undefined ? undefined : readMatch(ck, entry, path);
  const arch = entry.arch === undefined ? undefined : readArch(ck, entry, path);
  if (name === undefined || role === undefined || ports === undefined) return undefined;
  if (network === undefined) return undefined;
  if (modules === undefined || system_disk === null || reboot_policy === undefined)
    return undefined;
  if (match === null || arch === null) return undefined;
  return {
    name,
    role,
    ports,
    nameservers: network.nameservers,
    interfaces: network.interfaces.map((i) => i.declared),
    modules,
    ...(system_disk === undefined ? {} : { system_disk }),
    reboot_policy,
    ...(match === undefined ? {} : { match }),
    ...(arch === undefined ? {} : { arch }),
  };
}

// A stick and a release are built for one arch (docs/image.md, Arches): the machine's says
// which of them install it.
function readArch(ck: Check, entry: TomlTable, path: KeyPath): Arch | null {
  const arch = ck.optionalString(
    entry,
    path,
    "arch",
    "arch",
    'write arch = "amd64" or arch = "arm64"',
  );
  if (arch === undefined) return null;
  if (!isArch(arch)) {
    ck.error(
      ck.valuePos([...path, "arch"]),
      `arch ${JSON.stringify(arch)} is not an architecture liken builds for`,
      allowedHint(arch, ARCHES),
    );
    return null;
  }
  return arch;
}

function readName(ck: Check, entry: TomlTable, path: KeyPath): string | undefined {
  if (!("name" in entry)) {
    ck.error(
      ck.tablePos(path),
      'missing key "name" in [[machines]]',
      'add name = "NAME", a DNS-1123 label such as "worker-1"',
    );
    return undefined;
  }
  const name = ck.optionalString(
    entry,
    path,
    "name",
    "machine name",
    'quote it: name = "worker-1"',
  );
  if (name === undefined) return undefined;
  if (!isDnsLabel(name)) {
    ck.error(
      ck.valuePos([...path, "name"]),
      `machine name ${JSON.stringify(name)} is not a DNS-1123 label`,
      dnsLabelHint(name),
    );
    return undefined;
  }
  if (name === "auto") {
    ck.error(
      ck.valuePos([...path, "name"]),
      'machine name "auto" is taken',
      "liken.install=auto installs the machine whose match is the hardware: name this machine otherwise",
    );
    return undefined;
  }
  return name;
}

function readRole(ck: Check, entry: TomlTable, path: KeyPath): MachineRole | undefined {
  if (!("role" in entry)) {
    ck.error(
      ck.tablePos(path),
      'missing key "role" in [[machines]]',
      'add role = "leader" or role = "follower"',
    );
    return undefined;
  }
  const role = ck.optionalString(
    entry,
    path,
    "role",
    "role",
    'write role = "leader" or role = "follower"',
  );
  if (role === undefined) return undefined;
  if (!isOneOf(role, MACHINE_ROLES)) {
    ck.error(
      ck.valuePos([...path, "role"]),
      `role ${JSON.stringify(role)} is not a machine role`,
      allowedHint(role, MACHINE_ROLES),
    );
    return undefined;
  }
  return role;
}

function readRebootPolicy(ck: Check, entry: TomlTable, path: KeyPath): RebootPolicy | undefined {
  // Manual by default: a machine reboots into a staged release only when a person says so.
  if (entry.reboot_policy === undefined) return "Manual";
  const policy = ck.optionalString(
    entry,
    path,
    "reboot_policy",
    "reboot_policy",
    'write reboot_policy = "Automatic" or reboot_policy = "Manual"',
  );
  if (policy === undefined) return undefined;
  if (!isOneOf(policy, REBOOT_POLICIES)) {
    ck.error(
      ck.valuePos([...path, "reboot_policy"]),
      `reboot_policy ${JSON.stringify(policy)} is not a reboot policy`,
      allowedHint(policy, REBOOT_POLICIES),
    );
    return undefined;
  }
  return policy;
}

const PORTS_HINT = 'write ports = ["eno1"], one string per network port';

function readPorts(ck: Check, entry: TomlTable, path: KeyPath): string[] | undefined {
  const ports = entry.ports;
  if (ports === undefined) return [];
  const portsPath = [...path, "ports"];
  if (!Array.isArray(ports)) {
    ck.wrongType(portsPath, ports, "ports", "an array of strings", PORTS_HINT);
    return undefined;
  }
  const names: string[] = [];
  let ok = true;
  ports.forEach((port: unknown, index) => {
    const portPath = [...portsPath, index];
    if (typeof port !== "string") {
      ck.wrongType(portPath, port, "each port", "a string", PORTS_HINT);
      ok = false;
      return;
    }
    const problem = interfaceNameProblem(port);
    if (problem !== undefined) {
      ck.error(
        ck.valuePos(portPath),
        `port ${JSON.stringify(port)} ${problem}`,
        INTERFACE_NAME_RULE,
      );
      ok = false;
    } else if (names.includes(port)) {
      ck.error(
        ck.valuePos(portPath),
        `duplicate port ${JSON.stringify(port)}`,
        "list each port of a machine once",
      );
      ok = false;
    }
    names.push(port);
  });
  return ok ? names : undefined;
}

function isOneOf<T extends string>(value: string, allowed: readonly T[]): value is T {
  return (allowed as readonly string[]).includes(value);
}
