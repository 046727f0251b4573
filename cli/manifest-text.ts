// The normalized manifest as TOML, what `manifest check` prints for people: every default
// filled in, sizes in binary units, each machine's network as its own tables. It reads back
// as the same manifest (manifest-text.test.ts), so an operator may keep it as the file.

import type { InterfaceDeclaration } from "../common/network-declaration.ts";
import { formatSize } from "../common/size.ts";
import type { Machine, Manifest } from "../manifest/index.ts";

const q = (s: string) => JSON.stringify(s);
const size = (n: number | "rest") => q(n === "rest" ? n : formatSize(n));
const list = (items: readonly string[]) => `[${items.map(q).join(", ")}]`;

export function renderManifest(m: Manifest): string {
  const lines = [
    `cluster = ${q(m.cluster)}`,
    "",
    "[release]",
    `version = ${q(m.release.version)}`,
    "",
    "[layout]",
    ...(["esp", "slot", "crash_journal", "state"] as const).map(
      (k) => `${k} = ${size(m.layout[k])}`,
    ),
  ];
  if (m.secureBoot)
    lines.push(
      "",
      "[secure_boot]",
      ...(m.secureBoot.keepMicrosoft === undefined
        ? []
        : [`keep_microsoft = ${m.secureBoot.keepMicrosoft}`]),
      `enroll = ${q(m.secureBoot.enroll)}`,
    );
  if (m.encryption)
    lines.push("", "[encryption]", "tpm = true", `recovery = ${q(m.encryption.recovery)}`);
  for (const s of m.storage)
    lines.push("", "[[storage]]", `role = ${q(s.role)}`, `size = ${size(s.size)}`);
  for (const machine of m.machines) lines.push("", ...machineLines(machine));
  return `${lines.join("\n")}\n`;
}

function machineLines(machine: Machine): string[] {
  const lines = [
    "[[machines]]",
    `name = ${q(machine.name)}`,
    `role = ${q(machine.role)}`,
    `ports = ${list(machine.ports)}`,
  ];
  if (machine.nameservers.length > 0) lines.push(`nameservers = ${list(machine.nameservers)}`);
  if (machine.modules.length > 0)
    lines.push(
      "modules = [",
      ...machine.modules.map((d) => `  { name = ${q(d.name)}, parameters = ${q(d.parameters)} },`),
      "]",
    );
  if (machine.system_disk) {
    const parts = Object.entries(machine.system_disk).map(
      ([k, v]) =>
        `${k} = ${typeof v === "number" ? size(v) : typeof v === "boolean" ? String(v) : q(String(v))}`,
    );
    lines.push(`system_disk = { ${parts.join(", ")} }`);
  }
  lines.push(`reboot_policy = ${q(machine.reboot_policy)}`);
  if (machine.arch) lines.push(`arch = ${q(machine.arch)}`);
  if (machine.match) {
    const { mac, serial, uuid } = machine.match;
    const parts = [
      ...(mac ? [`mac = ${list(mac)}`] : []),
      ...(serial !== undefined ? [`serial = ${q(serial)}`] : []),
      ...(uuid !== undefined ? [`uuid = ${q(uuid)}`] : []),
    ];
    lines.push(`match = { ${parts.join(", ")} }`);
  }
  for (const i of machine.interfaces) lines.push("", ...interfaceLines(i));
  return lines;
}

function interfaceLines(i: InterfaceDeclaration): string[] {
  return [
    "[[machines.interfaces]]",
    `name = ${q(i.name)}`,
    ...(i.bond ? [`bond = { ports = ${list(i.bond.ports)}, mode = ${q(i.bond.mode)} }`] : []),
    ...(i.vlan ? [`vlan = { link = ${q(i.vlan.link)}, id = ${i.vlan.id} }`] : []),
    ...(i.mtu !== undefined ? [`mtu = ${i.mtu}`] : []),
    ...(i.addresses.length > 0 ? [`addresses = ${list(i.addresses)}`] : []),
    ...(i.routes.length > 0
      ? [`routes = [${i.routes.map((r) => `{ to = ${q(r.to)}, via = ${q(r.via)} }`).join(", ")}]`]
      : []),
    ...(i.dhcp ? ["dhcp = true"] : []),
  ];
}
