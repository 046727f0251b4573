// image-build/packages.json says once what every arch is built from; this expands it for
// one arch. Names may carry placeholders (`{arch}` Debian's name of the arch, `{nodeArch}`
// Node.js's), so the kernel and the Node.js package are spelled once for both; a package
// that means nothing on an arch lists the arches it serves.

import { ARCHES, type Arch, archFacts, isArch } from "../../common/arch.ts";
import { LikenError } from "../../common/errors.ts";
import type { Component } from "./private-apt.ts";

/** image-build/packages.json as written. */
export interface PackagesJson {
  readonly kernelMetaPackage: string;
  readonly packages: readonly {
    readonly name: string;
    readonly why: string;
    readonly component?: Component;
    /** The arches it is pinned for; every arch when absent. */
    readonly arches?: readonly string[];
  }[];
  readonly node: {
    readonly package: string;
    readonly version: string;
    readonly binary: string;
    readonly why: string;
  };
}

/** packages.json for one arch: every placeholder filled, every package that serves it. */
export interface ArchPackages {
  readonly arch: Arch;
  readonly kernelMetaPackage: string;
  readonly packages: readonly { readonly name: string; readonly component?: Component }[];
  readonly node: { readonly package: string; readonly version: string; readonly binary: string };
}

const FIX = "fix image-build/packages.json";

export function packagesFor(spec: PackagesJson, arch: Arch): ArchPackages {
  const fill = (text: string) => fillPlaceholders(text, arch);
  for (const p of spec.packages)
    for (const a of p.arches ?? [])
      if (!isArch(a))
        throw new LikenError({
          kind: "failed",
          what: `image-build/packages.json gives ${p.name} the arch ${a}, which liken does not build for`,
          hint: `name ${ARCHES.join(" or ")}, or ${FIX}`,
        });
  return {
    arch,
    kernelMetaPackage: fill(spec.kernelMetaPackage),
    packages: spec.packages
      .filter((p) => p.arches === undefined || p.arches.includes(arch))
      .map((p) => ({ name: fill(p.name), ...(p.component ? { component: p.component } : {}) })),
    node: {
      package: fill(spec.node.package),
      version: spec.node.version,
      binary: fill(spec.node.binary),
    },
  };
}

function fillPlaceholders(text: string, arch: Arch): string {
  const values: Record<string, string> = { arch, nodeArch: archFacts(arch).node };
  return text.replace(/\{([^}]*)\}/g, (whole, key: string) => {
    const value = values[key];
    if (value === undefined)
      throw new LikenError({
        kind: "failed",
        what: `image-build/packages.json names the placeholder ${whole} in ${text}`,
        hint: `use {arch} (Debian's name of the arch) or {nodeArch} (Node.js's), or ${FIX}`,
      });
    return value;
  });
}
