import { describe, expect, it } from "vitest";
import { initramfsModules, rootModules } from "../../formats/boot-modules.ts";
import {
  allDriversUnder,
  kernelArch,
  type ModuleEntry,
  type ModuleIndex,
  matchesPattern,
  moduleClosure,
  moduleName,
  parseBuiltinModinfo,
  parseModuleList,
  parseModulesAlias,
  parseModulesDep,
  parseModulesSoftdep,
  releaseBootModules,
  resolveModalias,
} from "./modules.ts";

// Lines as depmod writes them for Debian's 6.1.0-57-amd64.
const DEP = `kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko
kernel/drivers/virtio/virtio_ring.ko:
kernel/drivers/virtio/virtio_pci_modern_dev.ko:
kernel/drivers/virtio/virtio_pci_legacy_dev.ko:
kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_legacy_dev.ko kernel/drivers/virtio/virtio_pci_modern_dev.ko kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko
kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko
kernel/drivers/nvme/host/nvme-core.ko: kernel/block/t10-pi.ko kernel/lib/crc64-rocksoft.ko
kernel/drivers/nvme/host/nvme.ko.xz: kernel/drivers/nvme/host/nvme-core.ko kernel/block/t10-pi.ko kernel/lib/crc64-rocksoft.ko
kernel/block/t10-pi.ko:
kernel/lib/crc64-rocksoft.ko:
kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko kernel/fs/mbcache.ko kernel/fs/jbd2/jbd2.ko
kernel/lib/crc16.ko:
kernel/fs/mbcache.ko:
kernel/fs/jbd2/jbd2.ko:
kernel/crypto/crc32c_generic.ko:
kernel/arch/x86/crypto/crc32c-intel.ko:
kernel/drivers/usb/storage/usb-storage.ko: kernel/drivers/scsi/scsi_mod.ko
kernel/drivers/scsi/scsi_mod.ko:
`;

const ALIAS = `# Aliases extracted from modules themselves.
alias pci:v00001AF4d*sv*sd*bc*sc*i* virtio_pci
alias virtio:d00000002v* virtio_blk
alias pci:v*d*sv*sd*bc01sc08i02* nvme
alias pci:v0000106Bd00002005sv*sd*bc*sc*i* nvme
alias crypto-crc32c crc32c_intel
alias crc32c crc32c_intel
alias crypto-crc32c crc32c_generic
alias crc32c crc32c_generic
alias usb:v13FDp3940d0[0-2]*dc*dsc*dp*ic*isc*ip*in* usb_storage
alias usb:v*p*d*dc*dsc*dp*ic08isc06ip50in* usb-storage
`;

const SOFTDEP = `# Soft dependencies extracted from modules themselves.
softdep ext4 pre: crypto-crc32c
softdep jbd2 pre: crypto-crc32c
softdep cifs gcm
softdep cifs ccm
`;

const BUILTIN = `kernel/drivers/ata/libata.ko
kernel/drivers/tty/serial/8250/8250.ko
kernel/fs/pstore/pstore.ko
`;

const ORDER = `kernel/drivers/virtio/virtio_ring.ko
kernel/drivers/virtio/virtio.ko
kernel/drivers/virtio/virtio_pci_legacy_dev.ko
kernel/drivers/virtio/virtio_pci_modern_dev.ko
kernel/drivers/virtio/virtio_pci.ko
kernel/drivers/block/virtio_blk.ko
`;

function index(): ModuleIndex {
  const modules = parseModulesDep(DEP);
  return {
    kernel: "6.1.0-57-amd64",
    modules: new Map(modules.map((m) => [m.name, m])),
    builtin: new Set(parseModuleList(BUILTIN)),
    aliases: [
      ...parseModulesAlias(ALIAS),
      ...parseBuiltinModinfo("8250.alias=serial8250\0pstore.parm=backend:string\0"),
    ],
    softdeps: parseModulesSoftdep(SOFTDEP),
    order: new Map(parseModuleList(ORDER).map((n, i) => [n, i])),
  };
}

describe("module names", () => {
  it("normalizes file names the way the kernel does", () => {
    expect(moduleName("kernel/drivers/usb/storage/usb-storage.ko.xz")).toBe("usb_storage");
    expect(moduleName("kernel/fs/nls/nls_iso8859-1.ko")).toBe("nls_iso8859_1");
    expect(moduleName("hid-generic")).toBe("hid_generic");
    expect(moduleName("crc32c-intel.ko.zst")).toBe("crc32c_intel");
  });
});

describe("parsers", () => {
  it("reads modules.dep paths and transitive dependencies by name", () => {
    const nvme = parseModulesDep(DEP).find((m) => m.name === "nvme");
    expect(nvme).toEqual({
      name: "nvme",
      path: "kernel/drivers/nvme/host/nvme.ko.xz",
      depends: ["nvme_core", "t10_pi", "crc64_rocksoft"],
    });
    expect(parseModulesDep(DEP).find((m) => m.name === "virtio_ring")?.depends).toEqual([]);
  });

  it("reads aliases, skipping comments, with module names normalized", () => {
    const aliases = parseModulesAlias(ALIAS);
    expect(aliases[0]).toEqual(["pci:v00001AF4d*sv*sd*bc*sc*i*", "virtio_pci"]);
    expect(aliases.at(-1)).toEqual(["usb:v*p*d*dc*dsc*dp*ic08isc06ip50in*", "usb_storage"]);
    expect(aliases).toHaveLength(10);
  });

  it("reads softdeps like kmod: only the words after pre: or post:", () => {
    const soft = parseModulesSoftdep(SOFTDEP);
    expect(soft.get("ext4")).toEqual(["crypto-crc32c"]);
    expect(soft.get("cifs")).toEqual([]);
    expect(parseModulesSoftdep("softdep a pre: b c post: d\n").get("a")).toEqual(["b", "c", "d"]);
  });

  it("reads the built-ins and their aliases", () => {
    expect(parseModuleList(BUILTIN)).toEqual(["libata", "8250", "pstore"]);
    expect(parseBuiltinModinfo("8250.alias=serial8250\0pstore.parm=backend:string\0")).toEqual([
      ["serial8250", "8250"],
    ]);
  });
});

describe("moduleClosure", () => {
  it("adds every dependency, in modules.order order", () => {
    expect(moduleClosure(index(), ["virtio_blk", "virtio-pci"])).toEqual([
      "virtio_ring",
      "virtio",
      "virtio_pci_legacy_dev",
      "virtio_pci_modern_dev",
      "virtio_pci",
      "virtio_blk",
    ]);
  });

  it("follows softdeps through aliases, and resolves built-ins to nothing", () => {
    expect(moduleClosure(index(), ["ext4", "libata", "8250"]).sort()).toEqual([
      "crc16",
      "crc32c_generic",
      "crc32c_intel",
      "ext4",
      "jbd2",
      "mbcache",
    ]);
  });

  it("names a module the kernel lacks", () => {
    expect(() => moduleClosure(index(), ["nvme", "no_such_driver"])).toThrow(
      "kernel 6.1.0-57-amd64 has no module or alias no_such_driver",
    );
  });
});

describe("allDriversUnder", () => {
  it("selects modules by folder", () => {
    expect(
      allDriversUnder(index(), ["kernel/drivers/nvme/", "kernel/drivers/usb/storage/"]),
    ).toEqual(["nvme", "nvme_core", "usb_storage"]);
  });
});

describe("fnmatch", () => {
  it.each([
    ["pci:v*d*sv*sd*bc01sc08i02*", "pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02", true],
    ["pci:v*d*sv*sd*bc01sc08i02*", "pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc06i01", false],
    ["usb:v13FDp3940d0[0-2]*dc*", "usb:v13FDp3940d0150dc00", true],
    ["usb:v13FDp3940d0[0-2]*dc*", "usb:v13FDp3940d0350dc00", false],
    ["a[!0-2]b", "a3b", true],
    ["a[!0-2]b", "a1b", false],
    ["a[]]b", "a]b", true],
    ["a?c", "abc", true],
    ["a?c", "ac", false],
    ["x[y", "x[y", true],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
    ["dmi*:svnQEMU:*", "dmi:bvnEDKII:svnQEMU:pnStandardPC", true],
    ["a.b", "axb", false],
  ])("%s against %s is %s", (pattern, text, want) => {
    expect(matchesPattern(pattern, text)).toBe(want);
  });
});

describe("resolveModalias", () => {
  const aliases = index().aliases;
  it("maps QEMU's virtio-blk PCI function to virtio_pci and its virtio device to virtio_blk", () => {
    expect(
      resolveModalias("pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00", aliases),
    ).toEqual(["virtio_pci"]);
    expect(resolveModalias("virtio:d00000002v00001AF4", aliases)).toEqual(["virtio_blk"]);
  });

  it("maps NVMe controllers by class, and an Apple one by id too (once)", () => {
    expect(
      resolveModalias("pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02", aliases),
    ).toEqual(["nvme"]);
    expect(
      resolveModalias("pci:v0000106Bd00002005sv00000000sd00000000bc01sc08i02", aliases),
    ).toEqual(["nvme"]);
  });

  it("maps an alias to every module that claims it, and a built-in's alias to the built-in", () => {
    expect(resolveModalias("crypto-crc32c", aliases)).toEqual(["crc32c_intel", "crc32c_generic"]);
    expect(resolveModalias("serial8250", aliases)).toEqual(["8250"]);
    expect(
      resolveModalias("pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01", aliases),
    ).toEqual([]);
  });
});

describe("releaseBootModules", () => {
  // the initramfs carries the disk; the root virtio_net, whose closure shares virtio with it
  const idx = (): ModuleIndex => {
    const base = index();
    const net: ModuleEntry[] = [
      {
        name: "virtio_net",
        path: "kernel/drivers/net/virtio_net.ko",
        depends: ["virtio", "virtio_ring", "failover"],
      },
      { name: "failover", path: "kernel/net/core/failover.ko", depends: [] },
      { name: "tg3", path: "kernel/drivers/net/ethernet/broadcom/tg3.ko", depends: [] },
    ];
    return {
      ...base,
      modules: new Map([...base.modules, ...net.map((m) => [m.name, m] as const)]),
      aliases: [
        ...base.aliases,
        ["virtio:d00000001v*", "virtio_net"],
        ["pci:v000014E4d00001644sv*sd*bc*sc*i*", "tg3"],
        ["pci:v00008086d000010D3sv*sd*bc*sc*i*", "e1000e"], // not carried anywhere
      ],
    };
  };
  const entries = (i: ModuleIndex, names: string[]) =>
    moduleClosure(i, names).map((n) => i.modules.get(n)!);
  const listed = () => {
    const i = idx();
    const initramfs = {
      kernel: i.kernel,
      modules: entries(i, ["virtio_blk"]),
      builtin: [],
      aliases: [],
    };
    const root = {
      kernel: i.kernel,
      modules: entries(i, ["virtio_net", "tg3"]),
      builtin: [],
      aliases: [],
    };
    const firmware = new Map([
      [
        "tg3",
        [
          { file: "tigon/tg3_tso5.bin", carried: true },
          { file: "tigon/none.bin", carried: false },
        ],
      ],
    ]);
    return releaseBootModules(i, initramfs, root, firmware);
  };

  it("lists the initramfs's modules as they were and the root's others once, as root", () => {
    const value = listed();
    expect(initramfsModules(value).map((m) => m.name)).toEqual([
      "virtio_ring",
      "virtio",
      "virtio_blk",
    ]);
    expect(
      rootModules(value)
        .map((m) => m.name)
        .sort(),
    ).toEqual(["failover", "tg3", "virtio_net"]);
    expect(value.modules.find((m) => m.name === "virtio")).not.toHaveProperty("where");
    expect(value.modules.find((m) => m.name === "virtio_net")?.where).toBe("root");
  });

  it("keeps the firmware each module names, and none where it names none", () => {
    const value = listed();
    expect(value.modules.find((m) => m.name === "tg3")?.firmware).toEqual([
      { file: "tigon/tg3_tso5.bin", carried: true },
      { file: "tigon/none.bin", carried: false },
    ]);
    expect(value.modules.find((m) => m.name === "virtio_net")).not.toHaveProperty("firmware");
  });

  it("resolves a NIC's modalias to its root driver, and only carried modules' aliases", () => {
    const value = listed();
    expect(
      resolveModalias("pci:v000014E4d00001644sv00001028sd000001F0bc02sc00i00", value.aliases),
    ).toEqual(["tg3"]);
    expect(resolveModalias("virtio:d00000001v00001AF4", value.aliases)).toEqual(["virtio_net"]);
    expect(
      resolveModalias("pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00", value.aliases),
    ).toEqual([]);
    expect(resolveModalias("serial8250", value.aliases)).toEqual(["8250"]); // built-ins stay
  });

  it("reads a file without where as all initramfs", () => {
    const old = {
      modules: [{ name: "nvme", path: "kernel/drivers/nvme/host/nvme.ko", depends: [] }],
    };
    expect(initramfsModules(old).map((m) => m.name)).toEqual(["nvme"]);
    expect(rootModules(old)).toEqual([]);
  });
});

describe("a kernel of another arch", () => {
  const arm64 = (): ModuleIndex => ({ ...index(), kernel: "6.1.0-57-arm64", arch: "arm64" });

  it("is known by its Debian name's suffix", () => {
    expect(kernelArch("6.1.0-57-arm64")).toBe("arm64");
    expect(kernelArch("6.1.0-57-amd64")).toBe("amd64");
    expect(kernelArch("6.8.0-1-generic")).toBeUndefined();
  });

  it("skips the names it does not build (x86 chipsets' watchdogs on arm64, Arm's on amd64)", () => {
    expect(moduleClosure(arm64(), ["virtio_blk", "iTCO_wdt", "lpc_ich", "sp5100_tco"])).toEqual([
      "virtio_ring",
      "virtio",
      "virtio_blk",
    ]);
    expect(moduleClosure({ ...index(), arch: "amd64" }, ["ext4", "sbsa_gwdt"])).toContain("ext4");
  });

  it("still refuses a name the arch's kernel should have, and the other arch's absent names", () => {
    expect(() => moduleClosure(arm64(), ["virtio_blkk"])).toThrow(
      "kernel 6.1.0-57-arm64 has no module or alias virtio_blkk",
    );
    expect(() => moduleClosure({ ...index(), arch: "amd64" }, ["iTCO_wdt"])).toThrow(
      "kernel 6.1.0-57-amd64 has no module or alias iTCO_wdt",
    );
    expect(() => moduleClosure(index(), ["sbsa_gwdt"])).toThrow("has no module or alias sbsa_gwdt");
  });
});
