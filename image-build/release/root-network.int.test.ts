// A real release's root, read back from its rootfs.img, holds what the declared network
// needs (docs/image.md, What a release holds): iproute2's ip with every library it loads,
// first on the init's PATH; busybox's arping and udhcpc; the DHCP lease script; resolv.conf
// as a link under /run; and the bonding and 802.1Q drivers, which its modprobe finds by
// the names `ip link add` asks the kernel for.
import { mkdtemp, readFile, readlink, rm, symlink } from "node:fs/promises";
import { release as kernelRelease, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BootModules, rootModules } from "../../formats/boot-modules.ts";
import { RESOLV_CONF } from "../../formats/resolv-conf.ts";
import { cachedRelease } from "../../testing/cached-build.ts";
import { run } from "../../tools/exec.ts";
import { extractErofs } from "../../tools/fsck-erofs.ts";
import { parseLinks } from "../../tools/ip.ts";
import { UDHCPC_SCRIPT, UDHCPC_SCRIPT_TEXT } from "../../tools/udhcpc.ts";
import { ROOT_NETWORK_STACK_MODULES } from "./root-modules.ts";

let dir: string;
let root: string;
let modules: BootModules;

beforeAll(async () => {
  const release = await cachedRelease({ version: "1.0.0" });
  modules = JSON.parse(await readFile(join(release, "boot-modules.json"), "utf8"));
  dir = await mkdtemp(join(tmpdir(), "liken-root-network-"));
  root = join(dir, "root");
  await extractErofs(join(release, "rootfs.img"), root);
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a release's root, for the declared network", () => {
  it.skipIf(process.getuid?.() !== 0)(
    "runs iproute2's ip with its own libraries, ahead of busybox's on the init's PATH",
    async () => {
      const { stdout } = await run("chroot", [root, "/bin/ip", "-j", "-d", "link", "show", "lo"]);
      expect(parseLinks(stdout).map((l) => l.name)).toEqual(["lo"]);
      const init = await readFile(join(root, "sbin/init"), "utf8");
      const path = /^export PATH=(\S+)$/m.exec(init)?.[1]?.split(":") ?? [];
      expect(path.indexOf("/bin")).toBeGreaterThanOrEqual(0);
      expect(path.indexOf("/bin")).toBeLessThan(path.indexOf("/run/bin"));
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    "has busybox's arping and udhcpc, the lease script, and resolv.conf under /run",
    async () => {
      const applets = (await run("chroot", [root, "/bin/busybox", "--list"])).stdout.split("\n");
      expect(applets).toEqual(expect.arrayContaining(["arping", "udhcpc"]));
      expect(await readFile(join(root, UDHCPC_SCRIPT.slice(1)), "utf8")).toBe(UDHCPC_SCRIPT_TEXT);
      expect(await readlink(join(root, "etc/resolv.conf"))).toBe(RESOLV_CONF);
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    "lets its modprobe load bonding and 8021q by name and by the kernel's rtnl-link alias",
    async () => {
      const kernel = modules.kernel;
      const root_ = new Set(rootModules(modules).map((m) => m.name));
      for (const name of ROOT_NETWORK_STACK_MODULES) expect(root_.has(name), name).toBe(true);
      // busybox modprobe reads /lib/modules/$(uname -r): the host's kernel is another one
      if (kernelRelease() !== kernel)
        await symlink(kernel, join(root, "lib/modules", kernelRelease()));
      const dry = async (name: string) =>
        (await run("chroot", [root, "/bin/busybox", "modprobe", "-D", name])).stdout;
      expect(await dry("bonding")).toMatch(/insmod \S+\/bonding\.ko/);
      expect(await dry("rtnl-link-bond")).toMatch(/insmod \S+\/bonding\.ko/);
      expect(await dry("8021q")).toMatch(/insmod \S+\/8021q\.ko/);
      expect(await dry("rtnl-link-vlan")).toMatch(/insmod \S+\/8021q\.ko/);
    },
  );
});
