// The harness against a real QEMU and OVMF, with no bootable media: the firmware's boot
// manager is the guest. OVMF prints a `BdsDxe:` line for each boot option it tries (in
// BootOrder), then starts its built-in EFI shell, which takes keys on the serial console.
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConsoleWaitError } from "./console.ts";
import { startVm } from "./harness.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-harness-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function blankImage(name: string, bytes: number): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, "");
  await truncate(file, bytes);
  return file;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("a VM with OVMF and an empty disk", () => {
  it("shows OVMF's boot manager on the serial console, and is gone after QMP quit", async () => {
    const disk = await blankImage("empty.img", 1024 ** 3);
    const started = Date.now();
    const vm = await startVm({ disks: [{ path: disk, bus: "virtio" }] });
    try {
      let firstOutput = 0;
      const poll = setInterval(() => {
        if (firstOutput === 0 && vm.rawConsole() !== "") firstOutput = Date.now() - started;
      }, 10);
      const line = await vm.waitFor("BdsDxe:", 60_000).finally(() => clearInterval(poll));
      const firstBdsLine = Date.now() - started;
      // Measured for the report: OVMF under TCG prints nothing before its boot manager.
      console.info(
        `OVMF: first serial output ${firstOutput} ms, first BdsDxe line ${firstBdsLine} ms after start`,
      );
      expect(line).toMatch(
        /^BdsDxe: failed to load Boot0001 "UEFI Misc Device" from PciRoot\(0x0\)\/Pci\(0x\w+,0x0\): Not Found$/,
      );
      expect(vm.rawConsole()).toContain("\x1b["); // OVMF's screen codes are in the raw text only
      expect(vm.console()).not.toContain("\x1b");

      const pid = vm.pid!;
      expect(isRunning(pid)).toBe(true);
      await vm.qmp.execute("quit");
      const exit = await vm.waitForExit(10_000);
      expect(exit).toMatchObject({ exitCode: 0, shutdownReason: "host-qmp-quit" });
      expect(isRunning(pid)).toBe(false);
      expect(vm.boots).toBe(1);
    } finally {
      await vm.stop();
    }
  });

  it("fails a wait that times out with the console's last lines", async () => {
    const vm = await startVm({
      disks: [{ path: await blankImage("t.img", 1024 ** 2), bus: "virtio" }],
    });
    try {
      await vm.waitFor("BdsDxe: loading", 60_000);
      const error = await vm.waitFor("liken 1.0.0 slot a up", 500).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConsoleWaitError);
      expect((error as ConsoleWaitError).kind).toBe("timeout");
      expect((error as Error).message).toMatch(
        /^no "liken 1\.0\.0 slot a up" on the console within 0\.5 s\n--- the console's last lines ---\n/,
      );
      expect((error as Error).message).toContain('BdsDxe: loading Boot0002 "EFI Internal Shell"');
    } finally {
      await vm.stop();
    }
  });

  it("fails a wait at once when the VM stops for good", async () => {
    const vm = await startVm({
      disks: [{ path: await blankImage("x.img", 1024 ** 2), bus: "virtio" }],
    });
    try {
      await vm.waitFor("BdsDxe:", 60_000);
      const waiting = vm.waitFor("never printed", 60_000).catch((e: unknown) => e);
      await vm.qmp.execute("quit");
      const error = (await waiting) as ConsoleWaitError;
      expect(error.kind).toBe("ended");
      expect(error.message).toMatch(/^the VM stopped: QEMU exited with code 0 \(host-qmp-quit\)/);
    } finally {
      await vm.stop();
    }
  });

  // What "KVM internal error" does: QEMU pauses the guest and keeps running, silent. A QMP
  // `stop` pauses it the same way (the STOP event), so it stands in for the broken KVM here.
  it("ends a VM whose guest QEMU paused, at once, instead of waiting out the deadline", async () => {
    const vm = await startVm({
      disks: [{ path: await blankImage("p.img", 1024 ** 2), bus: "virtio" }],
    });
    try {
      await vm.waitFor("BdsDxe:", 60_000);
      const waiting = vm.waitFor("never printed", 300_000).catch((e: unknown) => e);
      const paused = Date.now();
      // The harness kills QEMU on the STOP event, which comes before the command's reply.
      await vm.qmp.execute("stop").catch(() => {});
      const error = (await waiting) as ConsoleWaitError;
      expect(Date.now() - paused).toBeLessThan(10_000);
      expect(error.kind).toBe("ended");
      expect(error.message).toMatch(
        /^QEMU paused the guest by itself \(accelerator (tcg|kvm); LIKEN_ACCEL=tcg forces TCG\)/,
      );
      expect((await vm.exited).signal).toBe("SIGKILL");
    } finally {
      await vm.stop();
    }
  });
});

describe("the EFI shell over the serial console", () => {
  it("takes typed keys, and a guest reboot starts QEMU again with the console carrying on", async () => {
    const vm = await startVm({ relaunchOnReboot: true, watchdog: "none" });
    try {
      // Any key skips the shell's 5 s countdown to startup.nsh.
      await vm.waitFor("any other key to continue", 60_000);
      await vm.type(" ");
      await vm.waitFor("Shell>", 10_000);
      await vm.type("echo liken-typed-1\n");
      expect(await vm.waitFor(/^liken-typed-1$/, 30_000)).toBe("liken-typed-1");
      // The shell's `reset` is a guest reboot: -no-reboot ends QEMU, the harness starts it again.
      const pid = vm.pid;
      await vm.type("reset\n");
      await vm.waitFor("any other key to continue", 60_000);
      await vm.type(" ");
      await vm.waitFor("Shell>", 10_000);
      expect(vm.boots).toBe(2);
      expect(vm.pid).not.toBe(pid);
      await vm.type("echo liken-typed-2\n");
      await vm.waitFor(/^liken-typed-2$/, 30_000);
      expect(vm.console()).toMatch(/liken-typed-1[\s\S]*liken-typed-2/);
    } finally {
      await vm.stop();
    }
  });
});
