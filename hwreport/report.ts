// The hardware report as a value: inventory, sysfs walk, boot-path verdict and the proposed
// layout, put together. Reading is here; judging is in boot-path.ts and plan-layout.ts, and
// rendering in render.ts, so the same value feeds the text, --json and the saved copy.
import { randomUUID } from "node:crypto";
import { basename } from "node:path";
import { rfc3339 } from "../common/time.ts";
import { PORT_WAIT_SECONDS } from "../formats/boot-interface.ts";
import type { BootModules } from "../formats/boot-modules.ts";
import type { LldpNeighbor } from "../formats/lldp.ts";
import { NO_PCI_NAMES, type PciIds, type PciNames } from "../formats/pci-ids.ts";
import { signerVerdict } from "../formats/pe-signer.ts";
import {
  type BootPath,
  bootPathOf,
  busOf,
  judgeChain,
  missingOf,
  modulesOf,
} from "../hardware/boot-path.ts";
import { inventoryDisks, type MissingDrivers } from "../hardware/disks/index.ts";
import type { Disk } from "../hardware/disks/types.ts";
import { readKernelLog } from "../hardware/kernel-log.ts";
import { netNames } from "../hardware/net-names.ts";
import { readSecureBoot } from "../hardware/secure-boot.ts";
import { waitForStickDrivers } from "../hardware/stick-drivers.ts";
import { findDisks, findNics } from "../hardware/sysfs.ts";
import { planInstall, planResultOf } from "../installer/plan/plan-install.ts";
import type { Machine, Manifest } from "../manifest/types.ts";
import { controllerIds, controllerOf } from "./controller.ts";
import { declaredInterfaces } from "./interfaces.ts";
import { type Inventory, readInventory } from "./inventory.ts";
import { systemPciNames } from "./pci-names.ts";
import { askTpmIdentity, readTpmReport } from "./tpm.ts";
import {
  type DiskReport,
  HWREPORT_SCHEMA,
  type HwReport,
  type LayoutReport,
  type NicReport,
  type PortReport,
  type Problem,
  type ReleaseSignature,
  type TpmReport,
} from "./types.ts";

export interface ReportInput {
  /** Where /sys is: "/" on a machine, a fixture tree in tests. */
  readonly root?: string;
  /** The release to judge the boot path against: its version and boot-modules.json. */
  readonly release?: {
    readonly version: string;
    readonly modules: BootModules;
    /** Size of its rootfs.img: a slot must hold it. */
    readonly rootfsSize?: number;
    /** Its signed unified kernel image (liken.efi); null for an unsigned release. */
    readonly image?: Buffer | null;
  };
  readonly manifest?: Manifest;
  /** The manifest machine to plan; every machine when absent. */
  readonly machine?: string;
  /** Read system, CPU, memory and firmware (systeminformation); tests of a fixture tree skip it. */
  readonly inventory?: (root: string) => Promise<Inventory>;
  /** The disk inventory, with the boot-path verdict filled in (inventoryDisks by default). */
  readonly disks?: (missingModules: MissingDrivers | undefined) => Promise<Disk[]>;
  /** The kernel's log, for the firmware files drivers asked for; /dev/kmsg's on "/". */
  readonly kernelLog?: () => Promise<readonly string[]>;
  /** The names of the controllers' PCI ids: the machine's on "/" (hwreport/pci-names.ts), none elsewhere. */
  readonly pciNames?: (ids: readonly PciIds[]) => PciNames;
  /**
   * Where each NIC is cabled, by kernel name (hardware/lldp-neighbors.ts); none asked when
   * absent, since listening sends an LLDPDU on every NIC with carrier.
   */
  readonly neighbors?: (nics: readonly NicReport[]) => Promise<ReadonlyMap<string, LldpNeighbor>>;
  readonly now?: Date;
  readonly newInstallId?: string;
}

const SEVERITY_ORDER = { error: 0, warning: 1, note: 2 } as const;

export async function buildReport(input: ReportInput): Promise<HwReport> {
  const root = input.root ?? "/";
  const { release } = input;
  const boot = release ? bootPathOf(release.version, release.modules) : undefined;
  const nicBoot = release ? bootPathOf(release.version, release.modules, "nic") : undefined;
  const machine = await readMachine(input, root);
  const problems: Problem[] = [...machine.inventory.problems];
  const { disks, classified } = await reportDisks(input, machine, boot, problems);
  if (boot) problems.push(...missingDriverProblems(disks, boot));
  else problems.push(noRelease());
  const nics = await withNeighbors(input, await reportNics(input, root, machine, nicBoot));
  const machines = input.manifest
    ? input.manifest.machines.filter((m) => input.machine === undefined || m.name === input.machine)
    : [];
  const ports = declaredPorts(machines, nics);
  problems.push(...portProblems(ports, nics));
  if (release) problems.push(...nicBootProblems(ports, nics, release.version));
  const layouts = proposedLayouts(input, machines, classified, problems, machine.tpm);
  const signature = release ? await releaseSignature(root, release) : null;
  if (release && signature) problems.push(...signatureProblems(release.version, signature));
  if (machine.inventory.system?.firmware.mode === "legacy") problems.push(legacyFirmware());
  return {
    schema: HWREPORT_SCHEMA,
    generatedAt: rfc3339(input.now ?? new Date()),
    problems: problems
      .map((p, i) => ({ p, i }))
      .sort((a, b) => SEVERITY_ORDER[a.p.severity] - SEVERITY_ORDER[b.p.severity] || a.i - b.i)
      .map(({ p }) => p),
    system: machine.inventory.system,
    tpm: machine.tpm,
    cpu: machine.inventory.cpu,
    memory: machine.inventory.memory,
    disks,
    nics,
    ports,
    interfaces: declaredInterfaces(machines, nics),
    release: boot ? { version: boot.version, kernel: boot.kernel, signature } : null,
    layouts,
    saved: null,
  };
}

function noRelease(): Problem {
  return {
    reason: "no-release",
    severity: "note",
    subject: "release",
    message: "no release given, so the report does not judge which disks the boot path can drive",
    hint: "run liken-stick hwreport --release DIR with the release you will install",
  };
}

function legacyFirmware(): Problem {
  return {
    reason: "legacy-firmware",
    severity: "warning",
    subject: "firmware",
    message:
      "the machine booted in legacy BIOS mode; an installed liken disk boots only through UEFI",
    hint: "switch the firmware to UEFI boot (turn CSM or legacy boot off) before you install",
  };
}

/** What the report reads of the machine before it judges anything. */
interface MachineFacts {
  readonly inventory: Inventory;
  readonly sysDisks: Awaited<ReturnType<typeof findDisks>>;
  readonly sysNics: Awaited<ReturnType<typeof findNics>>;
  /** The firmware files each device's driver asked for and did not get, by device. */
  readonly asked: Map<string, string[]>;
  readonly pciNames: PciNames;
  readonly tpm: TpmReport;
}

// The inventory, the sysfs walk and the kernel's log side by side, once the stick's drivers
// have loaded (on a machine: a fixture tree has none to wait for).
async function readMachine(input: ReportInput, root: string): Promise<MachineFacts> {
  const readLog =
    input.kernelLog ??
    (async () => (root === "/" ? readKernelLog("Direct firmware load for") : []));
  if (root === "/") await waitForStickDrivers();
  const [inventory, sysDisks, sysNics, log] = await Promise.all([
    (input.inventory ?? readInventory)(root),
    findDisks(root),
    findNics(root),
    // Without the log the report only cannot name missing firmware; the rest stands.
    readLog().catch(() => [] as string[]),
  ]);
  const lookup = input.pciNames ?? (root === "/" ? systemPciNames : () => NO_PCI_NAMES);
  const pciNames = lookup(
    [...sysDisks, ...sysNics].flatMap((x) => {
      const ids = controllerIds(x.chain);
      return ids ? [ids] : [];
    }),
  );
  // The TPM's option ROMs are named from the same pci.ids, looked up apart: few devices.
  const tpm = await readTpmReport(root, lookup, root === "/" ? askTpmIdentity : undefined);
  return { inventory, sysDisks, sysNics, asked: firmwareRequests(log), pciNames, tpm };
}

// Each disk's driver chain judged against the release's boot path, and its verdict from the
// disk inventory; a failed inventory leaves the chains and adds a problem.
async function reportDisks(
  input: ReportInput,
  machine: MachineFacts,
  boot: BootPath | undefined,
  problems: Problem[],
): Promise<{ disks: DiskReport[]; classified: Disk[] | undefined }> {
  const judged = machine.sysDisks.map((d) => {
    const chain = judgeChain(d.chain, boot);
    return { d, chain, missing: boot ? missingOf(chain) : null };
  });
  const missingByName = new Map(judged.map((j) => [j.d.name, j.missing ?? []]));
  const fill: MissingDrivers | undefined = boot
    ? (facts) => missingByName.get(facts.name) ?? []
    : undefined;
  let classified: Disk[] | undefined;
  try {
    classified = await (input.disks ?? ((f) => inventoryDisks({ missingDrivers: f })))(fill);
  } catch (error) {
    problems.push({
      reason: "section-failed",
      severity: "note",
      subject: "disks",
      message: `classifying the disks failed: ${(error as Error).message}`,
      hint: "the drivers below stand; run liken-stick disks to see the failure alone",
    });
  }
  const verdictOf = new Map((classified ?? []).map((c) => [c.path.replace(/^\/dev\//, ""), c]));
  const disks = judged.map(({ d, chain, missing }): DiskReport => {
    const c = verdictOf.get(d.name);
    return {
      name: d.name,
      path: `/dev/${d.name}`,
      size: d.size,
      model: d.model,
      serial: c?.serial ?? d.serial,
      wwn: c?.wwn ?? null,
      removable: d.removable,
      readOnly: d.readOnly,
      bus: busOf(d.chain),
      controller: controllerOf(d.chain, machine.pciNames),
      chain,
      modules: modulesOf(chain),
      missingModules: missing,
      verdict: c?.verdict ?? null,
      reasons: c?.reasons ?? [],
    };
  });
  return { disks, classified };
}

// Each NIC with its names (as systemd-udevd gives them), its driver chain judged against the
// release's root, and the firmware its driver asked for.
async function reportNics(
  input: ReportInput,
  root: string,
  machine: MachineFacts,
  nicBoot: BootPath | undefined,
): Promise<NicReport[]> {
  const named = await Promise.all(machine.sysNics.map((n) => netNames(root, n.name)));
  return machine.sysNics.map((n, i): NicReport => {
    const chain = judgeChain(n.chain, nicBoot);
    const own = chain[0];
    const names = named[i];
    const module = own?.module ?? null;
    return {
      name: names?.predictable ?? n.name,
      kernelName: n.name,
      names: {
        onboard: names?.onboard ?? null,
        slot: names?.slot ?? null,
        path: names?.path ?? null,
        mac: names?.mac ?? null,
      },
      mac: n.mac,
      driver: own?.driver ?? null,
      module: own?.module ?? null,
      builtin: own?.builtin ?? false,
      carrier: n.carrier,
      speed: n.speed,
      operstate: n.operstate,
      controller: controllerOf(n.chain, machine.pciNames),
      chain,
      firmware: (machine.asked.get(basename(own?.device ?? "")) ?? []).map((file) => ({
        file,
        carried: input.release ? carriesFirmware(input.release.modules, module, file) : null,
      })),
      neighbor: null,
    };
  });
}

async function withNeighbors(input: ReportInput, nics: NicReport[]): Promise<NicReport[]> {
  if (!input.neighbors) return nics;
  const heard = await input.neighbors(nics.filter((n) => n.carrier));
  return nics.map((n) => ({ ...n, neighbor: heard.get(n.kernelName) ?? null }));
}

// Each port the manifest's machines declare, and the NIC of this machine that has its name.
function declaredPorts(machines: readonly Machine[], nics: readonly NicReport[]): PortReport[] {
  return machines.flatMap((m) =>
    m.ports.map((port) => {
      const nic = nics.find((n) => n.name === port);
      return {
        machine: m.name,
        port,
        exists: nic !== undefined,
        carrier: nic?.carrier ?? false,
        nic: nic ? { kernelName: nic.kernelName, driver: nic.driver, mac: nic.mac } : null,
      };
    }),
  );
}

// The layout an install of each machine would write on these disks, planned as install
// plans (the claim's start time is the install's to take); none without the disks' verdicts.
function proposedLayouts(
  input: ReportInput,
  machines: readonly Machine[],
  classified: Disk[] | undefined,
  problems: Problem[],
  tpm: TpmReport,
): LayoutReport[] {
  if (!input.manifest || !classified) return [];
  const layouts: LayoutReport[] = [];
  const installId = input.newInstallId ?? randomUUID();
  const names = input.machine === undefined ? machines.map((m) => m.name) : [input.machine];
  for (const machine of names) {
    const plan = planResultOf(
      planInstall({
        disks: classified,
        manifest: input.manifest,
        machine,
        ...(input.release
          ? {
              release: {
                version: input.release.version,
                rootfsSize: input.release.rootfsSize ?? 0,
              },
            }
          : {}),
        wipe: false,
        newInstallId: installId,
        paths: [],
        now: 0,
        // [encryption]: this machine's TPM decides; where its recovery key goes is the
        // install's to check, not the hardware's.
        tpm: tpm.present ? tpm : null,
        recoveryTo: ["report", "console"],
      }),
    );
    layouts.push({ machine, plan });
    if (!plan.ok)
      problems.push({
        reason: "no-layout",
        severity: "error",
        subject: machine,
        message: `no layout for ${machine}: ${plan.failure.message}`,
        hint: plan.failure.hint,
      });
  }
  return layouts;
}

// An ineligible disk (the stick, a removable or read-only one) is never written: what its
// chain lacks stays in its block, not among the problems.
function missingDriverProblems(disks: readonly DiskReport[], boot: BootPath): Problem[] {
  return disks.flatMap((d) =>
    (d.verdict === "ineligible" ? [] : (d.missingModules ?? [])).map(
      (module): Problem => ({
        reason: "missing-driver",
        severity: "error",
        subject: d.name,
        message: `${d.name} needs ${module}, which release ${boot.version} cannot load at boot`,
        hint: `the layout leaves ${d.name} out; install on another disk, or use a release whose boot path carries ${module}`,
      }),
    ),
  );
}

// A declared port's NIC must work on the installed machine: its driver in the release, and
// every firmware file the driver asked this kernel for.
function nicBootProblems(
  ports: readonly PortReport[],
  nics: readonly NicReport[],
  version: string,
): Problem[] {
  return ports.flatMap((p): Problem[] => {
    const nic = nics.find((n) => n.name === p.port);
    if (!nic) return [];
    const subject = `${p.machine}/${p.port}`;
    const drivers = missingOf(nic.chain).map(
      (module): Problem => ({
        reason: "missing-driver",
        severity: "error",
        subject,
        message: `port ${p.port} of ${p.machine} needs ${module}, which release ${version} does not carry`,
        hint: `use a release whose root carries ${module}, or declare a port of another NIC`,
      }),
    );
    const firmware = nic.firmware
      .filter((f) => f.carried === false)
      .map(
        (f): Problem => ({
          reason: "missing-firmware",
          severity: "error",
          subject,
          message: `port ${p.port} of ${p.machine}: its driver ${nic.driver ?? "?"} asks for firmware ${f.file}, which release ${version} does not carry`,
          hint: `use a release that carries ${f.file} (Debian's firmware packages), or declare a port of another NIC`,
        }),
      );
    return [...drivers, ...firmware];
  });
}

/** `r8169 0000:03:00.0: Direct firmware load for rtl_nic/rtl8168h-2.fw failed with error -2`. */
function firmwareRequests(log: readonly string[]): Map<string, string[]> {
  const byDevice = new Map<string, string[]>();
  for (const line of log) {
    const m = /^\S+ (\S+): Direct firmware load for (\S+) failed/.exec(line);
    if (!m) continue;
    const [, device = "", file = ""] = m;
    const files = byDevice.get(device) ?? [];
    if (!files.includes(file)) files.push(file);
    byDevice.set(device, files);
  }
  return byDevice;
}

function carriesFirmware(modules: BootModules, module: string | null, file: string): boolean {
  const entry = modules.modules.find((m) => m.name === module);
  return entry?.firmware?.some((f) => f.file === file && f.carried) ?? false;
}

function portProblems(ports: readonly PortReport[], nics: readonly NicReport[]): Problem[] {
  const have = nics.map((n) => n.name).join(", ") || "none";
  return ports.flatMap((p): Problem[] => {
    if (!p.exists)
      return [
        {
          reason: "port-missing",
          severity: "error",
          subject: `${p.machine}/${p.port}`,
          message: `${p.machine} declares port ${p.port}, which this machine does not have; each boot reports PortMissing`,
          hint: `correct ports of ${p.machine} in the manifest (this machine has: ${have})`,
        },
      ];
    if (!p.carrier)
      return [
        {
          reason: "port-no-carrier",
          severity: "warning",
          subject: `${p.machine}/${p.port}`,
          message: `port ${p.port} of ${p.machine} has no carrier; each boot waits up to ${PORT_WAIT_SECONDS} s for it`,
          hint: "connect the cable, or remove the port from the manifest",
        },
      ];
    return [];
  });
}

/**
 * Who signed the release's boot image and whether this firmware's db leads to it; null
 * where the firmware has no Secure Boot variables (legacy boot, or not read).
 */
async function releaseSignature(
  root: string,
  release: NonNullable<ReportInput["release"]>,
): Promise<ReleaseSignature | null> {
  const secureBoot = await readSecureBoot(root);
  if (!secureBoot) return null;
  const { verdict, signer } = release.image
    ? signerVerdict(release.image, secureBoot.db)
    : { verdict: "unsigned" as const, signer: null };
  return { secureBoot: secureBoot.state, verdict, signer };
}

function signatureProblems(version: string, s: ReleaseSignature): Problem[] {
  if (s.secureBoot === "setup-mode")
    return [
      {
        reason: "secure-boot-setup-mode",
        severity: "note",
        subject: "firmware",
        message: "Secure Boot is in setup mode: no keys are enrolled, and anyone may enroll some",
        hint: "a stick built with image --sign enrolls the cluster's keys when it boots here",
      },
    ];
  if (s.secureBoot !== "enabled" || s.verdict === "trusted") return [];
  return [
    {
      reason: "release-not-trusted",
      severity: "error",
      subject: "release",
      message:
        s.verdict === "unsigned"
          ? `release ${version} is not signed, and this machine boots with Secure Boot on: its firmware will not start it`
          : `release ${version} is signed by "${s.signer}", which this machine's Secure Boot db does not hold: its firmware will not start it`,
      hint: "sign the release with the cluster's keys (release --sign DIR), enroll them (firmware setup mode and a stick built with image --sign), or turn Secure Boot off",
    },
  ];
}
