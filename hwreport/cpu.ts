// CPU and memory from /proc and /sys, without a process: systeminformation's cpu() runs
// lscpu and dmidecode through a shell (four processes, two seconds under emulation, most
// of the report's time on the stick). The fields keep systeminformation's meaning: the
// brand without the maker's name and the (R)/(TM)/CPU words, threads as cores, distinct
// cores as physicalCores, distinct packages as sockets.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { orNull } from "../common/or-null.ts";
import type { CpuReport, MemoryReport } from "./types.ts";

const MAKERS: readonly [RegExp, string][] = [
  [/intel/i, "Intel"],
  [/amd/i, "AMD"],
  [/hygon/i, "Hygon"],
  [/qemu|tcg/i, "QEMU"],
  [/centaur|zhaoxin/i, "Zhaoxin"],
];

// Arm CPUs name no model in /proc/cpuinfo: the MIDR's implementer and part numbers say who
// made the core and which it is (Arm's MIDR_EL1 description; the kernel's
// arch/arm64/include/asm/cputype.h). The cores of servers in racks today.
const ARM_IMPLEMENTERS: Readonly<Record<string, string>> = {
  "0x41": "Arm",
  "0x43": "Cavium",
  "0x48": "HiSilicon",
  "0x4e": "NVIDIA",
  "0x50": "Applied Micro",
  "0x51": "Qualcomm",
  "0x61": "Apple",
  "0xc0": "Ampere",
};
const ARM_PARTS: Readonly<Record<string, string>> = {
  "0x41/0xd03": "Cortex-A53",
  "0x41/0xd07": "Cortex-A57",
  "0x41/0xd08": "Cortex-A72",
  "0x41/0xd0c": "Neoverse N1",
  "0x41/0xd40": "Neoverse V1",
  "0x41/0xd49": "Neoverse N2",
  "0x41/0xd4f": "Neoverse V2",
  "0x43/0x0af": "ThunderX2",
  "0x48/0xd01": "Kunpeng 920",
  "0xc0/0xac3": "AmpereOne",
};

/** /proc/cpuinfo's blocks, one a logical CPU, as key → value. */
function cpuBlocks(text: string): Map<string, string>[] {
  return text
    .split(/\n\s*\n/)
    .map((block) => {
      const fields = new Map<string, string>();
      for (const line of block.split("\n")) {
        const at = line.indexOf(":");
        if (at > 0) fields.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      return fields;
    })
    .filter((f) => f.has("processor"));
}

/** The CPU as /proc/cpuinfo and cpufreq (`maxKHz`, if the machine has it) describe it. */
export function parseCpuinfo(text: string, maxKHz?: number): CpuReport | null {
  const cpus = cpuBlocks(text);
  const first = cpus[0];
  if (!first) return null;
  const implementer = first.get("CPU implementer")?.toLowerCase();
  const arch = implementer ? "arm64" : first.has("vendor_id") ? "amd64" : null;
  const model = (first.get("model name") ?? armModel(first, implementer) ?? "")
    .replace(/\((R|TM|C)\)/gi, " ")
    .replace(/\bCPU\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const maker =
    MAKERS.find(([pattern]) => pattern.test(model))?.[1] ??
    MAKERS.find(([pattern]) => pattern.test(first.get("vendor_id") ?? ""))?.[1] ??
    null;
  const words = model.split(" ");
  const brand =
    maker && words[0] && MAKERS.some(([p]) => p.test(words[0] as string))
      ? words.slice(1).join(" ")
      : model;
  const packages = new Set(cpus.map((c) => c.get("physical id") ?? "0"));
  const cores = new Set(
    cpus.map((c) => `${c.get("physical id") ?? "0"}/${c.get("core id") ?? c.get("processor")}`),
  );
  const rated = /@\s*([\d.]+)\s*GHz/i.exec(model)?.[1];
  const speedMax = maxKHz ? Math.round(maxKHz / 10_000) / 100 : rated ? Number(rated) : null;
  return {
    arch,
    manufacturer: implementer ? (ARM_IMPLEMENTERS[implementer] ?? null) : maker,
    brand: brand.replace(/\s*@\s*[\d.]+\s*GHz/i, "") || null,
    cores: cpus.length,
    physicalCores: cores.size,
    sockets: packages.size,
    speedMax,
  };
}

// The core's name, or its part number when the table above does not know it.
function armModel(cpu: Map<string, string>, implementer: string | undefined): string | undefined {
  const part = cpu.get("CPU part")?.toLowerCase();
  if (!implementer || !part) return undefined;
  return ARM_PARTS[`${implementer}/${part}`] ?? `part ${part}`;
}

/** MemTotal of /proc/meminfo, in bytes. */
export function parseMeminfo(text: string): MemoryReport | null {
  const kib = /^MemTotal:\s+(\d+)\s*kB/m.exec(text)?.[1];
  return kib ? { total: Number(kib) * 1024 } : null;
}

// Synchronous reads: /proc and sysfs answer from memory, and through the thread pool each
// read cost a millisecond under emulation.
export async function readCpu(root = "/"): Promise<CpuReport | null> {
  const text = readFileSync(join(root, "proc/cpuinfo"), "utf8");
  const max = orNull(() =>
    readFileSync(join(root, "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"), "utf8"),
  );
  return parseCpuinfo(text, Number(max?.trim()) || undefined);
}

export async function readMemory(root = "/"): Promise<MemoryReport | null> {
  return parseMeminfo(readFileSync(join(root, "proc/meminfo"), "utf8"));
}
