// `inspect` for people: the claim, then one short section per part of the disk.
import type { InterfaceDeclaration } from "../../common/network-declaration.ts";
import { partitionLabel } from "../../common/partition-labels.ts";
import { formatSizeShort } from "../../common/size.ts";
import { renderTable } from "../../common/table.ts";
import { claimOwnerBeside } from "../../formats/claim-words.ts";
import { entryState } from "../../formats/entry-name.ts";
import { PARTITION_TYPES } from "../../formats/gpt-types.ts";
import type { InstallerStatus } from "../../formats/installer-status.ts";
import type { MachineStatus } from "../../formats/machine-status.ts";
import type { InspectedEntry, InspectedSlot, Inspection } from "./types.ts";

export function renderInspection(i: Inspection): string {
  const out = [
    ...claimLines(i),
    "",
    "Partitions",
    i.partitions.length === 0 ? "  none (no GPT)" : partitionTable(i),
    "",
    "Slots",
    renderTable(
      ["SLOT", "VERSION", "ROOTFS"],
      (["a", "b"] as const).map((s) => [s, i.slots[s].version ?? "-", rootfs(i.slots[s])]),
      "  ",
    ),
    "",
    "Boot entries",
    entryLines(i.entries),
    "",
    ...documentLines(i),
    ...networkLines(i),
    ...crashLines(i),
  ];
  if (i.problems.length > 0) {
    out.push("", `Problems: ${i.problems.join(", ")} (docs/inspect.md says what to do)`);
  }
  return `${out.join("\n")}\n`;
}

// An encrypted state partition's documents are read on the machine only.
function documentLines(i: Inspection): string[] {
  const encrypted = i.partitions.filter((p) => p.encrypted).map((p) => p.label);
  if (i.partitions.find((p) => p.encrypted && p.label === partitionLabel("state")))
    return [
      `Encrypted (LUKS2): ${encrypted.join(", ")}; the spec, the installer's and the machine's status are read on the machine only`,
    ];
  return [
    ...(encrypted.length > 0 ? [`Encrypted (LUKS2): ${encrypted.join(", ")}`] : []),
    `Spec: ${i.spec ? `version ${text(i.spec.version)}` : "not readable"}`,
    `Installer: ${i.installer ? phaseLine(i.installer) : "no status document"}`,
    `Machine: ${i.status ? machineLine(i.status) : "not booted yet"}`,
  ];
}

function claimLines(i: Inspection): string[] {
  const c = i.claim;
  const state = c.complete ? "install complete" : "install PARTIAL (run the same install again)";
  // A mirror member's words name the machine themselves ("mirror member 1 of 2 of ...").
  const whose = `${c.mirror ? "," : " of"} ${claimOwnerBeside(c)}`;
  return [
    `${i.path}  ${formatSizeShort(i.size)}  liken ${c.use} disk${whose}, release ${c.release}, ${state}`,
    `  install ${c.installId} started ${c.createdAt}, ${c.copies} of 2 claim copies valid`,
  ];
}

const TYPE_NAMES = new Map<string, string>(
  Object.entries(PARTITION_TYPES).map(([name, guid]) => [guid, name]),
);

function partitionTable(i: Inspection): string {
  const rows = i.partitions.map((p) => [
    String(p.number),
    p.label,
    formatSizeShort(p.start),
    formatSizeShort(p.size),
    TYPE_NAMES.get(p.typeGuid) ?? p.typeGuid,
    p.partUuid,
  ]);
  return renderTable(["#", "LABEL", "START", "SIZE", "TYPE", "PARTUUID"], rows, "  ");
}

function rootfs(s: InspectedSlot): string {
  if (s.hashMatches === true) return "hash ok";
  if (s.hashMatches === false) return "hash MISMATCH";
  return s.version === null ? "empty" : "no rootfs hash";
}

function entryLines(entries: readonly InspectedEntry[] | null): string {
  if (entries === null) return "  not readable";
  if (entries.length === 0) return "  none";
  const rows = entries.map((e) => [e.fileName, e.slot ?? "-", e.version ?? "-", tries(e)]);
  return renderTable(["FILE", "SLOT", "VERSION", "TRIES"], rows, "  ");
}

function tries(e: InspectedEntry): string {
  if (e.slot === null) return "not a liken entry";
  const state = entryState(e);
  return state === "blessed" ? "proven" : `${state}: ${e.triesLeft} left, ${e.triesDone} done`;
}

function phaseLine(d: InstallerStatus): string {
  const reason = text(d.reason, "");
  return `${text(d.phase)}${reason ? ` (${reason})` : ""}: ${text(d.message, "")}`;
}

function machineLine(d: MachineStatus): string {
  // From the disk: `boot` may be missing or not an object.
  const boot: unknown = d.boot;
  const trial = typeof boot === "object" && boot !== null && "trial" in boot && boot.trial === true;
  return `${text(d.phase)}, version ${text(d.version)} slot ${text(d.slot)}${trial ? " (trial)" : ""}, updated ${text(d.updatedAt)}`;
}

// Shown when the install declared a network, or the last boot applied one.
function networkLines(i: Inspection): string[] {
  const { declared, declaredErrors, lastBoot } = i.network;
  const declares =
    declared !== null &&
    (declared.interfaces.length > 0 ||
      declared.nameservers.length > 0 ||
      declaredErrors.length > 0);
  if (!declares && (lastBoot === null || lastBoot === undefined)) return [];
  const out: string[] = [];
  if (declares) {
    const { nameservers } = declared;
    out.push(
      `Network (declared): ${nameservers.length > 0 ? `nameservers ${nameservers.join(" ")}` : "no nameservers"}`,
      ...aligned(declared.interfaces.map((d) => [d.name, declaredWords(d)])),
    );
    if (declaredErrors.length > 0) {
      // A file with many damaged parts: its first reasons say enough, JSON has them all.
      const more = declaredErrors.length > 3 ? `; and ${declaredErrors.length - 3} more` : "";
      const reasons = declaredErrors.slice(0, 3).map((e) => shown(e, "?", 120));
      out.push(`  does not read, so the machine applies none of it: ${reasons.join("; ")}${more}`);
    }
  }
  if (!i.status) return [...out, "Network (last boot): not booted yet"];
  const ready = list(i.status.conditions)
    .filter(isObject)
    .find((c) => c.type === "NetworkReady");
  const message = ready ? shown(ready.message, "", 400) : "";
  out.push(
    `Network (last boot): ${ready ? `NetworkReady ${shown(ready.status)} ${shown(ready.reason)}${message ? `: ${message}` : ""}` : "not reported"}`,
  );
  const interfaces = isObject(lastBoot) ? list(lastBoot.interfaces) : [];
  return [...out, ...aligned(interfaces.map(heldRow))];
}

function declaredWords(d: InterfaceDeclaration): string {
  const kind = d.bond
    ? `bond ${d.bond.mode} of ${d.bond.ports.join(", ")}`
    : d.vlan
      ? `vlan ${d.vlan.id} on ${d.vlan.link}`
      : "port";
  return [
    kind,
    ...(d.mtu !== undefined ? [`mtu ${d.mtu}`] : []),
    ...(d.addresses.length > 0 ? [d.addresses.join(" ")] : []),
    ...d.routes.map((r) => `route ${r.to} via ${r.via}`),
    ...(d.dhcp ? ["DHCP"] : []),
  ].join(", ");
}

// From the status document as the disk holds it: any field may be missing or of any type.
function heldRow(entry: unknown): string[] {
  if (!isObject(entry)) return ["?", "does not read"];
  const state = shown(entry.state);
  const bond = isObject(entry.bond) ? entry.bond : {};
  const addresses = list(entry.addresses).map((a) => shown(a));
  const words = [
    state,
    ...list(bond.members).map(memberWords),
    ...(addresses.length > 0 ? [addresses.join(" ")] : []),
    ...(entry.dhcp === true && addresses.length === 0 && state !== "missing"
      ? ["no DHCP lease"]
      : []),
  ];
  // Linux names are at most 15 characters: a longer one is damage, and would widen the column.
  return [shown(entry.name, "?", 16), words.join(", ")];
}

function memberWords(member: unknown): string {
  if (!isObject(member)) return "?";
  const name = shown(member.name);
  if (member.active === true) return `${name} carries traffic`;
  if (member.carrier === true) return `${name} carries no traffic`;
  return member.carrier === false ? `${name} no carrier` : `${name} ?`;
}

// Rows that read as sentences, their first column aligned: no header line.
function aligned(rows: readonly (readonly string[])[]): string[] {
  const [first, ...rest] = rows;
  return first ? [renderTable(first, rest, "  ")] : [];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

// Text from the disk on a terminal: no control characters, and short enough for a line.
function shown(value: unknown, fallback = "?", most = 60): string {
  const s = text(value, fallback).replace(/\p{Cc}/gu, "?");
  return s.length > most ? `${s.slice(0, most - 1)}…` : s;
}

function crashLines(i: Inspection): string[] {
  const j = i.journal;
  if (j === null) return ["Crashes: no crash journal"];
  if (!j.valid) return ["Crashes: crash journal header not valid"];
  if (j.installId !== i.claim.installId)
    return ["Crashes: the crash journal belongs to another install"];
  const skipped =
    j.skipped > 0
      ? ` (${j.skipped} torn or damaged record${j.skipped === 1 ? "" : "s"} skipped)`
      : "";
  const out = [`Crashes: ${i.crashes.length} recorded${skipped}`];
  const newest = i.crashes[0];
  if (newest) {
    const where = newest.release
      ? `release ${text(newest.release)} slot ${text(newest.slot, "-")}`
      : "release unknown";
    // Text from the disk on a terminal: no control characters.
    out.push(
      `  newest ${text(newest.time)}, ${where}: ${panicLine(newest)}`.replace(/\p{Cc}/gu, "?"),
    );
  }
  return out;
}

// The kernel's reason, without its timestamp: the panic line, or the dump's last line.
function panicLine(crash: Inspection["crashes"][number]): string {
  const lines = Array.isArray(crash.lines) ? crash.lines.filter((l) => typeof l === "string") : [];
  const line = lines.findLast((l) => l.includes("Kernel panic - not syncing")) ?? lines.at(-1);
  return line === undefined ? text(crash.kind) : line.replace(/^\[[\s\d.]+\]\s*/, "");
}

// Documents come from the disk: a field of the wrong type shows as "?" rather than throwing.
function text(value: unknown, fallback = "?"): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : fallback;
}
