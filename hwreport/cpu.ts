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
  const model = (first.get("model name") ?? "")
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
    manufacturer: maker,
    brand: brand.replace(/\s*@\s*[\d.]+\s*GHz/i, "") || null,
    cores: cpus.length,
    physicalCores: cores.size,
    sockets: packages.size,
    speedMax,
  };
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
