// udevadm(8) of the host (Debian 12: systemd 252): the reference that hardware/net-names.ts
// is proven against. It is never run on the host's own sysfs: `udevadm test` renames live
// interfaces (it did so on this machine once). It runs inside a QEMU guest (bundleUdevadm()
// gathers what it needs) or in a chroot over a fixture tree, in a network namespace of its
// own so that nothing it asks of rtnetlink reaches the host's interfaces.
import { copyFile, mkdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { run } from "../tools/exec.ts";
import { sharedLibraries } from "../tools/ldd.ts";

export const UDEVADM = "/usr/bin/udevadm";
/** The rules and .link files that name a NIC on Debian 12, in the folders they come from. */
export const NAMING_RULES = [
  "/usr/lib/udev/rules.d/73-special-net-names.rules",
  "/usr/lib/udev/rules.d/75-net-description.rules",
  "/usr/lib/udev/rules.d/80-net-setup-link.rules",
];
export const NAMING_LINKS = [
  "/usr/lib/systemd/network/73-usb-net-by-mac.link",
  "/usr/lib/systemd/network/99-default.link",
];

/**
 * Copies the host's udevadm into `dir` with what it needs to run anywhere with the same
 * kernel ABI: `udevadm`, `lib/` (its libraries), `ld-linux-x86-64.so.2` (the loader: run
 * it as `dir/ld-linux-x86-64.so.2 --library-path dir/lib dir/udevadm ...`), and `rules/`
 * and `network/` (NAMING_RULES and NAMING_LINKS).
 */
export async function bundleUdevadm(dir: string): Promise<void> {
  const { libraries, loader } = await sharedLibraries(UDEVADM);
  for (const sub of ["lib", "rules", "network"]) await mkdir(join(dir, sub), { recursive: true });
  await copyFile(UDEVADM, join(dir, "udevadm"));
  await copyFile(loader, join(dir, "ld-linux-x86-64.so.2"));
  for (const lib of libraries) await copyFile(lib, join(dir, "lib", basename(lib)));
  for (const rule of NAMING_RULES) await copyFile(rule, join(dir, "rules", basename(rule)));
  for (const link of NAMING_LINKS) await copyFile(link, join(dir, "network", basename(link)));
}

/**
 * The host's udevadm, as `udevadm --version` says it ("252") and with the Debian package
 * that brings it, which names the stable release: "252 (udev 252.39-1~deb12u2)".
 */
export async function udevadmVersion(): Promise<string> {
  const version = (await run(UDEVADM, ["--version"])).stdout.trim();
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's format
  const pkg = await run("dpkg-query", ["--show", "--showformat=${Version}", "udev"]).then(
    (r) => ` (udev ${r.stdout.trim()})`,
    () => "",
  );
  return `${version}${pkg}`;
}

/** What udevadm said of one interface in a chroot: net_id's lines, and `udevadm test`'s. */
export interface ChrootAnswer {
  /** `udevadm test-builtin net_id`'s standard output: ID_NET_NAMING_SCHEME, ID_NET_NAME_*. */
  readonly netId: string;
  /**
   * The INTERFACE (the name after the rules ran: a rule's NAME wins over ID_NET_NAME),
   * ID_NET_NAME, ID_NET_LINK_FILE, ID_PATH and INTERFACE_OLD lines of `udevadm test`.
   */
  readonly test: string;
}

/**
 * Runs udevadm over the fixture tree in a chroot at `root`, which holds `sys/`, a
 * bundleUdevadm() folder at `udev/`, and its rules and .link files copied to
 * `usr/lib/udev/rules.d` and `usr/lib/systemd/network`. Each run has a network namespace of
 * its own holding one stand-in interface (ifb) at the fixture interface's ifindex, so that
 * net_setup_link finds a link and renames that one. SYSTEMD_DEVICE_VERIFY_SYSFS=0 lets
 * sd-device read a tree that is not sysfs.
 */
export async function udevadmInChroot(
  root: string,
  iface: string,
  ifindex: number,
): Promise<ChrootAnswer> {
  // The shell only sequences the two commands; every value comes in as an argument.
  const script = 'ip link add "$1" index "$2" type ifb && shift 2 && exec chroot "$@"';
  const udevadm = ["/udev/ld-linux-x86-64.so.2", "--library-path", "/udev/lib", "/udev/udevadm"];
  const inChroot = (args: string[]) =>
    run(
      "unshare",
      ["--net", "sh", "-c", script, "sh", iface, String(ifindex), root, ...udevadm, ...args],
      {
        env: { SYSTEMD_DEVICE_VERIFY_SYSFS: "0" },
      },
    );
  const netId = (await inChroot(["test-builtin", "net_id", `/sys/class/net/${iface}`])).stdout;
  const test = (await inChroot(["test", `/sys/class/net/${iface}`])).stdout
    .split("\n")
    .filter((l) => /^(INTERFACE|ID_NET_NAME|ID_NET_LINK_FILE|ID_PATH|INTERFACE_OLD)=/.test(l))
    .join("\n");
  return { netId, test: test === "" ? "" : `${test}\n` };
}
