// `liken-stick vm` as a person runs it: the console on the terminal, Ctrl-A X to quit.
import { describe, expect, it } from "vitest";
import { start } from "../../tools/exec.ts";
import { BUNDLE, cli } from "../cli.ts";

describe("liken-stick vm", () => {
  it("boots a new blank disk with the console on stdout and quits on Ctrl-A X with QEMU's code", {
    timeout: 60_000,
  }, async () => {
    const p = await start(
      process.execPath,
      [BUNDLE, "vm", "--disk", "64M,nvme", "--memory", "512", "--accel", "tcg"],
      {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    let out = "";
    let err = "";
    p.stderr?.setEncoding("utf8").on("data", (c: string) => {
      err += c;
    });
    const sawBootManager = new Promise<void>((resolve) => {
      p.stdout?.setEncoding("utf8").on("data", (c: string) => {
        out += c;
        if (/BdsDxe: [^\n]*\n/.test(out)) resolve();
      });
    });
    try {
      await Promise.race([
        sawBootManager,
        p.exited.then((e) => {
          throw new Error(`liken-stick vm ended first: ${JSON.stringify(e)}\n${err}`);
        }),
      ]);
      expect(out).toContain('BdsDxe: failed to load Boot0001 "UEFI QEMU NVMe Ctrl nvme0 1"');
      p.stdin?.write("\x01x"); // Ctrl-A X
      const exit = await p.exited;
      expect(exit.exitCode).toBe(0);
      expect(err).toContain("liken-stick vm: disk 1 on nvme: new, blank, 64MiB\n");
      expect(err).toContain("liken-stick vm: QEMU q35, TCG (asked for), 512 MiB, firmware plain\n");
      expect(err).toContain("Ctrl-A X quits");
    } finally {
      // SIGTERM, not SIGKILL: liken-stick's exit handler takes QEMU with it.
      p.kill("SIGTERM");
    }
  });

  it("refuses a command line with nothing to boot, or an unknown bus", async () => {
    expect(await cli(["vm"])).toEqual({
      stdout: "",
      stderr: "liken-stick vm: nothing to boot (give --stick FILE and/or --disk SIZE|FILE)\n",
      code: 2,
    });
    expect((await cli(["vm", "--disk", "8G", "--firmware", "secure"])).stderr).toBe(
      "liken-stick vm: --firmware secure: not a firmware (use plain, setup-mode or microsoft)\n",
    );
    const r = await cli(["vm", "--disk", "8G,scsi"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'liken-stick vm: --disk 8G,scsi: unknown bus "scsi" (the bus is one of virtio, nvme, ahci, e.g. --disk 8G,nvme)\n',
    );
    expect(await cli(["vm", "--disk", "8G", "--accel", "hvf"])).toEqual({
      stdout: "",
      stderr: "liken-stick vm: --accel hvf: not an accelerator (give --accel tcg or --accel kvm)\n",
      code: 2,
    });
    const bad = await cli(["vm", "--disk", "8G"], { env: { LIKEN_ACCEL: "fast" } });
    expect(bad.stderr).toBe(
      "liken-stick vm: LIKEN_ACCEL=fast is not an accelerator (set LIKEN_ACCEL to tcg or kvm, or unset it)\n",
    );
    const missing = await cli(["vm", "--stick", "/nonexistent/stick.img"]);
    expect(missing.stderr).toBe(
      "liken-stick vm: --stick /nonexistent/stick.img: no such file (give an image file or a size)\n",
    );
  });
});
