// System, CPU, memory and firmware, from /sys/class/dmi/id (the SMBIOS tables dmidecode
// reads), /proc/cpuinfo, /proc/meminfo and /sys/firmware, without a process. Where the
// kernel has no SMBIOS copy, systeminformation asks dmidecode; it swallows the tool's
// failures, so each call here has a deadline, and a tool that is not on PATH is reported
// as missing rather than read as "no data" (research/hwreport-tui.md section 1).
// systeminformation is loaded only then: its 600 KB cost the stick's report a second.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import {
  readSecureBoot,
  type SecureBootFacts,
  type SecureBootState,
} from "../hardware/secure-boot.ts";
import { readSystemFacts, type SmbiosFields, smbiosValue } from "../hardware/smbios.ts";
import { readCpu, readMemory } from "./cpu.ts";
import type { CpuReport, MemoryReport, Problem, SystemReport } from "./types.ts";

async function si() {
  return (await import("systeminformation")).default;
}

/** What systeminformation reads each tool for; a missing one is named in the report. */
const TOOLS: readonly { readonly tool: string; readonly pkg: string; readonly gives: string }[] = [
  {
    tool: "dmidecode",
    pkg: "dmidecode",
    gives: "the system, baseboard and firmware details where /sys/class/dmi/id is missing",
  },
];

export interface Inventory {
  readonly system: SystemReport | null;
  readonly cpu: CpuReport | null;
  readonly memory: MemoryReport | null;
  readonly problems: readonly Problem[];
}

type Outcome<T> = { ok: true; value: T } | { ok: false; why: string };

/** `promise`, or a failure after `ms`: a hung tool must not hang the report. */
export async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Outcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, why: `no answer within ${ms} ms` }), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (v): Outcome<T> => ({ ok: true, value: v }),
        (e: unknown): Outcome<T> => ({ ok: false, why: (e as Error).message ?? String(e) }),
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `tool` is an executable on PATH. */
export async function onPath(tool: string, path = process.env.PATH ?? ""): Promise<boolean> {
  return path
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(join(dir, tool), constants.X_OK);
        return true;
      } catch {
        // Not executable here, or not here: the next folder of PATH is tried.
        return false;
      }
    });
}

/** UEFI or legacy, and the Secure Boot state and keys from the efivars. */
export async function readFirmware(root = "/"): Promise<{
  mode: "uefi" | "legacy";
  secureBoot: boolean | null;
  secureBootState: SecureBootState | null;
  secureBootKeys: SecureBootFacts["keys"] | null;
}> {
  const uefi = statSync(join(root, "sys/firmware/efi"), { throwIfNoEntry: false }) !== undefined;
  const facts = uefi ? await readSecureBoot(root) : undefined;
  return {
    mode: uefi ? "uefi" : "legacy",
    secureBoot: facts ? facts.state === "enabled" : null,
    secureBootState: facts?.state ?? null,
    secureBootKeys: facts?.keys ?? null,
  };
}

function sectionFailed(section: string, why: string): Problem {
  return {
    reason: "section-failed",
    severity: "note",
    subject: section,
    message: `reading the ${section} failed: ${why}`,
    hint: "the rest of the report stands; run the report again to retry",
  };
}

/** SMBIOS writes the firmware's date MM/DD/YYYY; the report, as systeminformation, YYYY-MM-DD. */
function isoDate(date: string | undefined): string | undefined {
  const m = date ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(date) : null;
  return m ? `${m[3]}-${m[1]}-${m[2]}` : date;
}

// systeminformation's answer, or what sysfs already gave without a process.
function fromDmi<T>(
  dmi: SmbiosFields | null,
  make: (d: SmbiosFields) => T,
  read: () => Promise<T>,
): Promise<T> {
  return dmi ? Promise.resolve(make(dmi)) : read();
}

/** System, CPU, memory and firmware, each call bounded by `timeoutMs`. */
export async function readInventory(root = "/", timeoutMs = 3000): Promise<Inventory> {
  const dmi = readSystemFacts(root);
  const [system, bios, baseboard, cpu, mem, firmware, tools] = await Promise.all([
    withDeadline(
      fromDmi(
        dmi,
        (d) => ({
          manufacturer: d.sys_vendor,
          model: d.product_name,
          serial: d.product_serial,
          uuid: d.product_uuid,
        }),
        async () => (await si()).system(),
      ),
      timeoutMs,
    ),
    withDeadline(
      fromDmi(
        dmi,
        (d) => ({
          vendor: d.bios_vendor,
          version: d.bios_version,
          releaseDate: isoDate(d.bios_date),
        }),
        async () => (await si()).bios(),
      ),
      timeoutMs,
    ),
    withDeadline(
      fromDmi(
        dmi,
        (d) => ({ manufacturer: d.board_vendor, model: d.board_name, serial: d.board_serial }),
        async () => (await si()).baseboard(),
      ),
      timeoutMs,
    ),
    withDeadline(readCpu(root), timeoutMs),
    withDeadline(readMemory(root), timeoutMs),
    readFirmware(root),
    Promise.all(TOOLS.map(async (t) => ({ ...t, present: await onPath(t.tool) }))),
  ]);
  const problems: Problem[] = [];
  for (const t of tools.filter((x) => !x.present)) {
    problems.push({
      reason: "tool-missing",
      severity: "note",
      subject: t.tool,
      message: `${t.tool} is missing, so the report lacks ${t.gives} that only it reads`,
      hint: `install the ${t.pkg} package to see them; nothing else depends on it`,
    });
  }
  for (const [section, outcome] of [
    ["system", system],
    ["firmware", bios],
    ["baseboard", baseboard],
    ["CPU", cpu],
    ["memory", mem],
  ] as const) {
    if (!outcome.ok) problems.push(sectionFailed(section, outcome.why));
  }
  const s = system.ok ? system.value : undefined;
  const b = bios.ok ? bios.value : undefined;
  const bb = baseboard.ok ? baseboard.value : undefined;
  return {
    system: {
      manufacturer: smbiosValue(s?.manufacturer),
      product: smbiosValue(s?.model),
      serial: smbiosValue(s?.serial),
      uuid: smbiosValue(s?.uuid)?.toLowerCase() ?? null,
      baseboard: {
        manufacturer: smbiosValue(bb?.manufacturer),
        product: smbiosValue(bb?.model),
        serial: smbiosValue(bb?.serial),
      },
      firmware: {
        ...firmware,
        vendor: smbiosValue(b?.vendor),
        version: smbiosValue(b?.version),
        date: smbiosValue(b?.releaseDate),
      },
    },
    cpu:
      cpu.ok && cpu.value
        ? {
            ...cpu.value,
            manufacturer: smbiosValue(cpu.value.manufacturer),
            brand: smbiosValue(cpu.value.brand),
          }
        : null,
    memory: mem.ok ? mem.value : null,
    problems,
  };
}
