// The stick's /init for each medium is a shell script the kernel runs as PID 1: a syntax
// error would stop every machine before it says a word, so each one is parsed here with
// the shell's -n (busybox ash and dash read the same POSIX syntax used here).
import { describe, expect, it } from "vitest";
import { run } from "../../tools/exec.ts";
import { stickInitrdInit } from "./initrd-init.ts";
import type { StickMedium } from "./medium-sh.ts";

const MEDIA: readonly StickMedium[] = [
  { kind: "stick", payloadPartUuid: "4c494b45-4e53-5449-434b-000000000002" },
  { kind: "iso", volumeLabel: "LIKEN_STICK" },
  { kind: "net" },
];

function init(medium: StickMedium): string {
  const image = { rootHash: "ab".repeat(32), dataBlocks: 100 };
  return stickInitrdInit({
    medium,
    modules: {
      hosts: ["xhci_pci"],
      storage: ["usb_storage"],
      fs: ["vfat"],
      beside: ["sr_mod", "isofs"],
    },
    root: { path: "stick-root.img", ...image, fstype: "squashfs" },
    releaseRoot: { path: "release/rootfs.img", ...image, fstype: "erofs" },
    checksumsFile: "/etc/liken/payload.sha256",
    nodeReadAhead: [{ skipMiB: 0, countMiB: 48 }],
  });
}

describe("the stick's /init", () => {
  it.each(MEDIA)("parses as a shell script for the $kind medium", async (medium) => {
    await run("sh", ["-n"], { input: init(medium) });
  });

  it("records which medium it booted from, for the stick's root", () => {
    for (const medium of MEDIA)
      expect(init(medium)).toContain(`echo ${medium.kind} > /run/liken/medium`);
  });

  it("reads each root image with direct I/O where the medium allows it, and boots on where it does not", () => {
    for (const medium of MEDIA) {
      const script = init(medium);
      for (const loop of ["/dev/loop0", "/dev/loop1"]) {
        const set = script.indexOf(`/sbin/losetup --direct-io=on ${loop} 2>/dev/null\n`);
        expect(set).toBeGreaterThan(script.indexOf(`losetup -r ${loop} `));
        expect(script.slice(set).split("\n")[1]).toMatch(/^DM_DISABLE_UDEV=1 dmsetup create/);
      }
    }
  });

  it("starts Node.js once from the release's root once it is mounted, before switch_root", () => {
    for (const medium of MEDIA) {
      const script = init(medium);
      const warm = script.indexOf("chroot /root/release /usr/bin/node -e 0 > /dev/null 2>&1 &");
      expect(warm).toBeGreaterThan(script.indexOf("/dev/mapper/liken-stick-release /root/release"));
      expect(warm).toBeLessThan(script.indexOf("exec switch_root"));
    }
  });

  it("on the network, checks each file against the hash built in, and holds on a mismatch naming it", () => {
    const net = init({ kind: "net" });
    expect(net).toContain("while read -r hash file; do");
    expect(net).toContain('[ "$(sha256sum "/payload/$file" | cut -d\' \' -f1)" = "$hash" ]');
    expect(net).toMatch(
      /hold "\$file from \$PAYLOAD\/\$file is not the file this netboot was built with/,
    );
    // The retry schedule: 10 s, doubling, at most 2 minutes.
    expect(net).toContain("WAIT=$(( WAIT * 2 )); [ $WAIT -gt 120 ] && WAIT=120");
  });
});
