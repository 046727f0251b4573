// A unified kernel image on the pinned systemd stub, signed here, checked by sbsigntool's
// sbverify and read back by binutils' objdump: the tools a person would check one with.
import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sectionData } from "../../formats/pe.ts";
import { CommandError, run } from "../../tools/exec.ts";
import { requireUnpackedInputs } from "../unpacked.ts";
import { readKeys } from "./keys.ts";
import { signPe } from "./sign-pe.ts";
import { buildUki } from "./uki.ts";

let dir: string;
let uki: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-uki-"));
  const inputs = await requireUnpackedInputs();
  uki = buildUki({
    stub: await readFile(inputs.efiStub),
    kernel: Buffer.alloc(100_001, 0x4b),
    initrd: Buffer.alloc(50_003, 0x49),
    cmdline: "console=ttyS0,115200 panic=30",
    osRelease: "ID=liken\n",
  });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a unified kernel image", () => {
  it("carries the os-release, command line, kernel and initrd as sections objdump reads", async () => {
    const file = join(dir, "uki.efi");
    await writeFile(file, uki);
    const { stdout } = await run("objdump", ["-h", file]);
    const sections = [...stdout.matchAll(/^\s*\d+ (\.\w+)\s+([0-9a-f]+)\s+([0-9a-f]+)/gm)].map(
      (m) => ({
        name: m[1],
        size: Number.parseInt(m[2] ?? "", 16),
        vma: Number.parseInt(m[3] ?? "", 16),
      }),
    );
    const added = sections.slice(-4);
    expect(added.map((s) => [s.name, s.size])).toEqual([
      [".osrel", 9],
      [".cmdline", 30],
      [".linux", 100_001],
      [".initrd", 50_003],
    ]);
    // In address order after the stub's own sections.
    const vmas = sections.map((s) => s.vma);
    expect([...vmas].sort((a, b) => a - b)).toEqual(vmas);
    expect(sectionData(uki, ".cmdline")?.toString("latin1")).toBe(
      "console=ttyS0,115200 panic=30\0",
    );
  });

  it("signed with db verifies against db's certificate only, and the same bytes every time", async () => {
    const keys = await readKeys("test/fixtures/keys/cluster");
    const signed = signPe(uki, keys.signers.db);
    expect(signPe(uki, keys.signers.db).equals(signed)).toBe(true);
    const file = join(dir, "signed.efi");
    await writeFile(file, signed);
    await run("sbverify", ["--cert", "test/fixtures/keys/cluster/db.crt", file]);
    for (const other of ["test/fixtures/keys/cluster/KEK.crt", "test/fixtures/keys/other/db.crt"]) {
      await expect(run("sbverify", ["--cert", other, file])).rejects.toBeInstanceOf(CommandError);
    }
    expect(
      new X509Certificate(await readFile("test/fixtures/keys/cluster/db.crt")).subject,
    ).toMatch(/liken db/);
  });

  it("with one byte of its command line changed no longer verifies", async () => {
    const keys = await readKeys("test/fixtures/keys/cluster");
    const signed = signPe(uki, keys.signers.db);
    const at = signed.indexOf("panic=30");
    signed.write("1", at + 7, "latin1");
    const file = join(dir, "changed.efi");
    await writeFile(file, signed);
    await expect(
      run("sbverify", ["--cert", "test/fixtures/keys/cluster/db.crt", file]),
    ).rejects.toBeInstanceOf(CommandError);
  });
});
