import { describe, expect, it } from "vitest";
import { parseCpuinfo, parseMeminfo } from "./cpu.ts";

// Two sockets of a Xeon with two cores of two threads each, as /proc/cpuinfo shows them.
function xeon(): string {
  const blocks: string[] = [];
  let processor = 0;
  for (const socket of [0, 1])
    for (const core of [0, 1])
      for (let thread = 0; thread < 2; thread++)
        blocks.push(
          [
            `processor\t: ${processor++}`,
            "vendor_id\t: GenuineIntel",
            "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz",
            `physical id\t: ${socket}`,
            `core id\t\t: ${core}`,
            "cpu MHz\t\t: 2100.000",
          ].join("\n"),
        );
  return `${blocks.join("\n\n")}\n`;
}

describe("the CPU from /proc/cpuinfo", () => {
  it("counts threads, cores and sockets, and names the brand without the maker's marks", () => {
    expect(parseCpuinfo(xeon())).toEqual({
      arch: "amd64",
      manufacturer: "Intel",
      brand: "Xeon Gold 6230",
      cores: 8,
      physicalCores: 4,
      sockets: 2,
      speedMax: 2.1,
    });
  });

  it("takes the top speed from cpufreq when the machine has it", () => {
    expect(parseCpuinfo(xeon(), 3_900_000)?.speedMax).toBe(3.9);
  });

  it("reads a virtual machine's CPU, whose name gives no speed", () => {
    const text = [
      "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nphysical id\t: 0\ncore id\t\t: 0",
      "processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nphysical id\t: 0\ncore id\t\t: 1",
    ].join("\n\n");
    expect(parseCpuinfo(text)).toEqual({
      arch: "amd64",
      manufacturer: "AMD",
      brand: "EPYC",
      cores: 2,
      physicalCores: 2,
      sockets: 1,
      speedMax: null,
    });
  });

  it("keeps a name whose maker it does not know", () => {
    const text = "processor\t: 0\nvendor_id\t: CyrixInstead\nmodel name\t: 6x86MX\n";
    expect(parseCpuinfo(text)).toMatchObject({ manufacturer: null, brand: "6x86MX", cores: 1 });
  });

  it("names an Arm server's cores by their implementer and part, and says arm64", () => {
    // /proc/cpuinfo of an Ampere Altra (Neoverse N1 cores), two of its 80 shown.
    const core = (n: number) =>
      `processor\t: ${n}\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1`;
    expect(parseCpuinfo(`${core(0)}\n\n${core(1)}\n`)).toEqual({
      arch: "arm64",
      manufacturer: "Arm",
      brand: "Neoverse N1",
      cores: 2,
      physicalCores: 2,
      sockets: 1,
      speedMax: null,
    });
    const unknown = "processor\t: 0\nCPU implementer\t: 0xc0\nCPU part\t: 0xfff\n";
    expect(parseCpuinfo(unknown)).toMatchObject({ manufacturer: "Ampere", brand: "part 0xfff" });
  });

  it("is null without a processor", () => {
    expect(parseCpuinfo("")).toBeNull();
  });
});

describe("the memory from /proc/meminfo", () => {
  it("is MemTotal in bytes", () => {
    expect(parseMeminfo("MemTotal:       24683584 kB\nMemFree:  1 kB\n")).toEqual({
      total: 24683584 * 1024,
    });
    expect(parseMeminfo("")).toBeNull();
  });
});
