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
