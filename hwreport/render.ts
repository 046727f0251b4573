// The report as text, in the order an operator reads it: problems first, then the system,
// TPM, CPU and memory, disks, NICs and ports, and the proposed layout.
import { formatSizeShort } from "../common/size.ts";
import type { LldpNeighbor } from "../formats/lldp.ts";
import { optionRomWords } from "../hardware/tpm/option-roms.ts";
import { renderLayout, renderPlanFailure } from "../installer/plan/render.ts";
import type {
  ChainLevel,
  ControllerReport,
  DiskReport,
  HwReport,
  InterfaceReport,
  NicReport,
  ReleaseSignature,
} from "./types.ts";

export function renderReport(r: HwReport): string {
  return [
    problems(r),
    system(r),
    tpm(r),
    cpuAndMemory(r),
    disks(r),
    nics(r),
    layout(r),
    ...(r.saved ? [`Saved to ${r.saved}\n`] : []),
  ].join("\n");
}

function section(title: string, lines: readonly string[]): string {
  return [title, ...lines.map((l) => `  ${l}`), ""].join("\n");
}

function problems(r: HwReport): string {
  if (r.problems.length === 0) return section("Problems: none", []);
  return section(
    `Problems (${r.problems.length})`,
    r.problems.flatMap((p) => [`${p.severity.padEnd(8)}${p.message}`, `${" ".repeat(8)}${p.hint}`]),
  );
}

const or = (v: string | null | undefined, fallback = "unknown") => v ?? fallback;

const SECURE_BOOT = {
  enabled: "on",
  disabled: "off",
  "setup-mode": "off, in setup mode (keys can be enrolled)",
} as const;

function signatureLine(version: string, s: ReleaseSignature): string {
  if (s.verdict === "unsigned") return `${version} is not signed`;
  return `${version} signed by ${s.signer}, ${s.verdict === "trusted" ? "a key this firmware's db holds" : "NOT A KEY THIS FIRMWARE'S DB HOLDS"}`;
}

function system(r: HwReport): string {
  const s = r.system;
  if (!s) return section("System", ["not read"]);
  const fw = s.firmware;
  const secure =
    fw.secureBootState === null ? "" : `, Secure Boot ${SECURE_BOOT[fw.secureBootState]}`;
  const fwWhat = [fw.vendor, fw.version, fw.date ? `(${fw.date})` : null].filter(Boolean);
  return section("System", [
    `machine     ${[s.manufacturer, s.product].filter(Boolean).join(" ") || "unknown"}`,
    `serial      ${or(s.serial)}`,
    `uuid        ${or(s.uuid)}`,
    `baseboard   ${[s.baseboard.manufacturer, s.baseboard.product].filter(Boolean).join(" ") || "unknown"}${s.baseboard.serial ? `, serial ${s.baseboard.serial}` : ""}`,
    `firmware    ${fw.mode === "uefi" ? "UEFI" : "legacy BIOS"}${secure}${fwWhat.length ? `; ${fwWhat.join(" ")}` : ""}`,
    ...(fw.secureBootKeys
      ? [
          `db keys     ${fw.secureBootKeys.db.join(", ") || "none"}`,
          `PK          ${fw.secureBootKeys.pk.join(", ") || "none"}`,
        ]
      : []),
    ...(r.release?.signature
      ? [`release     ${signatureLine(r.release.version, r.release.signature)}`]
      : []),
  ]);
}

function tpm(r: HwReport): string {
  const t = r.tpm;
  const roms = `option ROMs ${optionRomWords(t.optionRoms)}`;
  if (!t.present) return section("TPM", ["no TPM", roms]);
  return section("TPM", [
    `version     ${t.version ?? "unknown"}${t.driver ? ` (driver ${t.driver})` : ""}`,
    `maker       ${or(t.manufacturer)}${t.firmware ? `, firmware ${t.firmware}` : ""}`,
    `event log   ${or(t.eventLog, "not readable")}`,
    roms,
  ]);
}

function cpuAndMemory(r: HwReport): string {
  const c = r.cpu;
  return section("CPU and memory", [
    c
      ? `cpu         ${c.arch ? `${c.arch}: ` : ""}${[c.manufacturer, c.brand].filter(Boolean).join(" ") || "unknown"}, ${c.cores} threads, ${c.physicalCores} cores, ${c.sockets} socket${c.sockets === 1 ? "" : "s"}${c.speedMax ? `, up to ${c.speedMax} GHz` : ""}`
      : "cpu         not read",
    `memory      ${r.memory ? formatSizeShort(r.memory.total) : "not read"}`,
  ]);
}

/** `sd (sd_mod) < usb-storage (usb_storage) < usb (usbcore) < xhci_hcd (xhci_pci)`. */
export function renderChain(chain: readonly ChainLevel[]): string {
  if (chain.length === 0) return "no hardware (a virtual device)";
  return chain
    .map((l) => {
      const what =
        l.driver === null
          ? `no driver${l.module ? ` (${l.module} would load)` : ""}`
          : `${l.driver} (${l.builtin ? `built in${l.module !== l.driver ? ` as ${l.module}` : ""}` : l.module})`;
      return l.boot === "missing" ? `${what} MISSING` : what;
    })
    .join(" < ");
}

/**
 * `megaraid_sas (Broadcom / LSI MegaRAID SAS 2108 [Liberator]; Dell PERC H700 Integrated)`:
 * the driver, then what pci.ids calls the device and, after a semicolon, the card; the
 * driver alone where pci.ids names neither vendor nor device.
 */
export function renderController(c: ControllerReport): string {
  const driver = c.driver ?? "no driver";
  const what = [c.vendor, c.device].filter(Boolean).join(" ");
  if (!what) return driver;
  return `${driver} (${what}${c.subsystem ? `; ${c.subsystem}` : ""})`;
}

function bootLine(d: DiskReport, r: HwReport): string {
  if (!r.release) return "boot path   not judged (no --release)";
  if (d.missingModules && d.missingModules.length > 0)
    return `boot path   release ${r.release.version} lacks ${d.missingModules.join(", ")}`;
  return `boot path   release ${r.release.version} drives it`;
}

function disks(r: HwReport): string {
  if (r.disks.length === 0) return section("Disks", ["none found"]);
  return section(
    "Disks",
    r.disks.flatMap((d) => [
      `${d.name}  ${formatSizeShort(d.size)}  ${d.bus ?? "unknown bus"}${d.model ? `  ${d.model}` : ""}${d.serial ? `  serial ${d.serial}` : ""}${d.wwn ? `  wwn ${d.wwn}` : ""}${d.removable ? "  removable" : ""}${d.readOnly ? "  read-only" : ""}`,
      ...(d.controller ? [`  controller  ${renderController(d.controller)}`] : []),
      `  drivers     ${renderChain(d.chain)}`,
      `  ${bootLine(d, r)}`,
      `  verdict     ${d.verdict ?? "not classified"}${d.reasons.length ? ` (${d.reasons.join(", ")})` : ""}`,
    ]),
  );
}

function nicLines(n: NicReport): string[] {
  const link = n.carrier ? `link up${n.speed ? ` ${n.speed} Mb/s` : ""}` : "no carrier";
  const kernel = n.kernelName === n.name ? "" : ` (kernel: ${n.kernelName})`;
  const firmware = n.firmware.map(
    (f) =>
      `  firmware    ${f.file}${f.carried === null ? "" : f.carried ? ", in the release" : ", NOT IN THE RELEASE"}`,
  );
  return [
    `${n.name}${kernel}  ${or(n.mac, "no MAC")}  ${renderChain(n.chain)}  ${link}`,
    ...(n.controller ? [`  controller  ${renderController(n.controller)}`] : []),
    ...(n.neighbor ? [`  cabled to   ${neighborWords(n.neighbor)}`] : []),
    ...firmware,
  ];
}

// "tor-7a (00:1c:73:aa:bb:cc) port Ethernet12 "rack 7", VLAN 40"
function neighborWords(n: LldpNeighbor): string {
  const name = n.systemName ? `${n.systemName} (${n.chassis})` : n.chassis;
  const description = n.portDescription ? ` "${n.portDescription}"` : "";
  const vlan = n.portVlan ? `, VLAN ${n.portVlan}` : "";
  return `${name} port ${n.port}${description}${vlan}`;
}

function interfaceLine(i: InterfaceReport): string {
  return `interface ${i.name} of ${i.machine} (${i.kind}): ${i.summary}`;
}

function portLine(p: HwReport["ports"][number]): string {
  const state = p.exists ? (p.carrier ? "present, link up" : "present, NO CARRIER") : "NOT PRESENT";
  const nic = p.nic
    ? ` (${[p.nic.kernelName, p.nic.driver, p.nic.mac].filter(Boolean).join(", ")})`
    : "";
  return `port ${p.port} of ${p.machine}: ${state}${nic}`;
}

function nics(r: HwReport): string {
  return section("NICs", [
    ...(r.nics.length ? r.nics.flatMap(nicLines) : ["none found"]),
    ...r.ports.map(portLine),
    ...r.interfaces.map(interfaceLine),
  ]);
}

function layout(r: HwReport): string {
  if (r.layouts.length === 0)
    return section("Proposed layout", [
      "none: give --manifest FILE (and --as NAME for one machine) to see it",
    ]);
  const parts = r.layouts.map((l) => {
    if (l.plan.ok) return `${l.machine}:\n${indent(renderLayout(l.plan.layout))}`;
    return `${l.machine}: no layout: ${l.plan.failure.message}\n${indent(renderPlanFailure(l.plan.failure))}`;
  });
  return `Proposed layout\n${parts.join("\n")}\n`;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => (l === "" ? l : `    ${l}`))
    .join("\n");
}
