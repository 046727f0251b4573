// `liken-stick netboot` and `image --out FILE.iso`, run as an operator runs them: what the
// folder holds and what a boot server reads from it, the hashes the initramfs carries, the
// signed image a Secure Boot machine fetches, the exports, the refusals that write nothing,
// and two builds giving the same bytes.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sectionData } from "../../formats/pe.ts";
import { cli } from "../../test/cli.ts";
import { cachedRelease } from "../../testing/cached-build.ts";
import { run } from "../../tools/exec.ts";

const MANIFEST = "test/fixtures/manifests/good/match.toml";
const URL = "http://10.0.0.1/liken/";
const KEYS = "test/fixtures/keys/cluster";
let dir: string;
let release: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liken-netboot-"));
  release = await cachedRelease({ version: "1.0.0" });
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

function netboot(out: string, ...extra: string[]) {
  return cli([
    "netboot",
    ...["--manifest", MANIFEST, "--release", release, "--out", out, "--url", URL],
    ...extra,
  ]);
}

/** Every file under `folder`, relative path -> sha256. */
async function tree(folder: string, prefix = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(join(folder, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) Object.assign(out, await tree(folder, path));
    else
      out[path] = createHash("sha256")
        .update(await readFile(join(folder, path)))
        .digest("hex");
  }
  return out;
}

describe("netboot", () => {
  it("writes the files a boot server serves, and the initramfs carries every payload file's hash", async () => {
    const out = join(dir, "folder");
    const result = await netboot(out, "--append", "liken.install=auto");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Wrote the amd64 netboot folder ${out}; serve it at ${URL}.\n`);
    // What it did, step by step, on stderr (a log here: no terminal): stdout is the result.
    expect(result.stderr.match(/^liken-stick netboot: \[\d\/6\] .*$/gm)).toEqual([
      "liken-stick netboot: [1/6] the pinned inputs: Debian packages and Node.js for amd64",
      "liken-stick netboot: [2/6] building the stick's root: Node.js, liken-stick and its code cache, the tools, every driver",
      "liken-stick netboot: [3/6] linking the files the release's root holds too (read from its rootfs.img)",
      "liken-stick netboot: [4/6] compressing the stick's root (squashfs, zstd), with its dm-verity hash tree",
      "liken-stick netboot: [5/6] building the initramfs: the drivers that find the network, every payload file's hash",
      `liken-stick netboot: [6/6] writing ${out}: the payload, the kernel, the initramfs, iPXE, dnsmasq.conf`,
    ]);
    const files = await tree(out);
    expect(Object.keys(files).filter((f) => !f.startsWith("payload/"))).toEqual(
      expect.arrayContaining(["boot.ipxe", "dnsmasq.conf", "initrd.img", "ipxe.efi", "vmlinuz"]),
    );
    for (const f of [
      "cluster.toml",
      "release/release.toml",
      "release/rootfs.img",
      "stick-root.img",
    ])
      expect(files).toHaveProperty(`payload/${f}`);

    const ipxe = await readFile(join(out, "boot.ipxe"), "utf8");
    expect(ipxe.startsWith("#!ipxe\n")).toBe(true);
    // Relative URLs: the folder works from any HTTP root.
    expect(ipxe).toMatch(/^kernel vmlinuz initrd=initrd\.img liken\.payload=\$\{liken-payload\} /m);
    expect(ipxe).toContain(" liken.install=auto");
    expect(ipxe).toMatch(/^initrd initrd\.img$/m);
    expect(ipxe).not.toContain("http");

    const conf = await readFile(join(out, "dnsmasq.conf"), "utf8");
    expect(conf).toContain("dhcp-boot=tag:efi-x86_64,tag:!ipxe,ipxe.efi\n");
    expect(conf).toContain(`dhcp-boot=tag:ipxe,${URL}boot.ipxe\n`);
    expect(conf).toContain(`dhcp-boot=tag:efi-http,tag:!ipxe,${URL}ipxe.efi\n`);
    expect(conf).toContain(`tftp-root=${out}\n`);
    // dnsmasq reads it as it is.
    await run("dnsmasq", ["--test", `--conf-file=${join(out, "dnsmasq.conf")}`]);

    // The hashes travel inside the initramfs: every payload file, none fetched beside it.
    const cpio = join(dir, "initrd.cpio");
    await run("zstd", ["-d", "-q", "-f", join(out, "initrd.img"), "-o", cpio]);
    const sums = (
      await run("cpio", ["-i", "--quiet", "--to-stdout", "-F", cpio, "etc/liken/payload.sha256"])
    ).stdout;
    const payload = Object.entries(files).filter(([f]) => f.startsWith("payload/"));
    expect(sums.trim().split("\n").sort()).toEqual(
      payload.map(([f, h]) => `${h}  ${f.slice("payload/".length)}`).sort(),
    );
  }, 600_000);

  it("gives the same bytes twice", async () => {
    const [a, b] = [join(dir, "repro-1"), join(dir, "repro-2")];
    expect((await netboot(a)).code).toBe(0);
    expect((await netboot(b)).code).toBe(0);
    const [ta, tb] = [await tree(a), await tree(b)];
    // The configuration names the folder's own path; everything else is the same.
    delete ta["dnsmasq.conf"];
    delete tb["dnsmasq.conf"];
    expect(tb).toEqual(ta);
  }, 600_000);

  it("signed, writes one image with the payload's URL in its signed command line", async () => {
    const signed = await cachedRelease({ version: "1.0.0", signKeys: KEYS });
    const out = join(dir, "signed");
    const result = await cli([
      "netboot",
      ...["--manifest", MANIFEST, "--release", signed, "--out", out, "--url", URL],
      ...["--sign", KEYS],
    ]);
    expect(result.code).toBe(0);
    const names = await readdir(out);
    expect(names).toContain("liken.efi");
    for (const unsigned of ["vmlinuz", "initrd.img", "ipxe.efi", "boot.ipxe"])
      expect(names).not.toContain(unsigned);
    await run("sbverify", ["--cert", `${KEYS}/db.crt`, join(out, "liken.efi")]);
    const cmdline = sectionData(await readFile(join(out, "liken.efi")), ".cmdline")?.toString();
    expect(cmdline).toContain(`liken.payload=${URL}payload`);
    const conf = await readFile(join(out, "dnsmasq.conf"), "utf8");
    expect(conf).toContain("dhcp-boot=tag:efi-x86_64,liken.efi\n");
    expect(conf).toContain(`dhcp-boot=tag:efi-http,${URL}liken.efi\n`);
  }, 600_000);

  it("writes matchbox profiles and groups, and Tinkerbell hardware and templates", async () => {
    const m = join(dir, "matchbox");
    expect((await netboot(m, "--format", "matchbox")).code).toBe(0);
    const profile = JSON.parse(
      await readFile(join(m, "matchbox/profiles/liken-worker-1.json"), "utf8"),
    );
    expect(profile.boot.args).toContain("liken.install=worker-1");
    expect(profile.boot.args).toContain(`liken.payload=${URL}payload`);
    expect(await readdir(join(m, "matchbox/groups"))).toEqual([
      "liken-leader-1-5254004c4b01.json",
      "liken-worker-1-5254004c4b02.json",
      "liken-worker-1-5254004c4b12.json",
    ]);
    const t = join(dir, "tinkerbell");
    expect((await netboot(t, "--format", "tinkerbell")).code).toBe(0);
    const hardware = await readFile(join(t, "tinkerbell/hardware.yaml"), "utf8");
    expect(hardware).toContain('mac: "52:54:00:4c:4b:12"');
    expect(hardware).toContain(`url: "${URL}boot.ipxe"`);
  }, 600_000);

  it("writes an arm64 folder whose firmware loads a unified kernel image, and refuses iPXE's engines there", async () => {
    const arm64 = await cachedRelease({ version: "1.0.0", arch: "arm64" });
    const out = join(dir, "arm64");
    const args = ["--manifest", "test/fixtures/manifests/good/small-arm64.toml"];
    const result = await cli(["netboot", ...args, "--release", arm64, "--out", out, "--url", URL]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Wrote the arm64 netboot folder ${out}; serve it at ${URL}.\n`);
    const files = Object.keys(await tree(out));
    expect(files).toContain("liken.efi");
    expect(files.filter((f) => !f.startsWith("payload/") && /ipxe|vmlinuz|initrd/.test(f))).toEqual(
      [],
    );
    const uki = await readFile(join(out, "liken.efi"));
    expect(sectionData(uki, ".cmdline")?.toString()).toContain(
      `console=ttyAMA0,115200 panic=30 liken.payload=${URL}payload`,
    );
    const conf = await readFile(join(out, "dnsmasq.conf"), "utf8");
    expect(conf).toContain("dhcp-match=set:efi-aarch64,option:client-arch,11\n");
    expect(conf).toContain("dhcp-match=set:efi-http,option:client-arch,19\n");
    expect(conf).toContain("dhcp-boot=tag:efi-aarch64,liken.efi\n");
    expect(conf).not.toContain("client-arch,7");

    const engine = join(dir, "arm64-matchbox");
    const refused = await cli([
      "netboot",
      ...args,
      ...["--release", arm64, "--out", engine, "--url", URL, "--format", "matchbox"],
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      "matchbox boots machines through iPXE, which Debian builds for amd64 only, and the release is for arm64 machines",
    );
    await expect(stat(engine)).rejects.toThrow();
  }, 600_000);

  it("refuses, writing nothing: liken.wipe=1, a folder of something else, an engine with a signed build", async () => {
    const wipe = join(dir, "wipe");
    const refused = await netboot(wipe, "--append", "liken.install=auto liken.wipe=1");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "liken.wipe=1 on the network: it cannot record what it installed, so it would wipe and install again at every boot from it",
    );
    expect(await stat(wipe).catch(() => null)).toBeNull();

    const other = join(dir, "other");
    await mkdir(other);
    await writeFile(join(other, "notes.txt"), "mine\n");
    const kept = await netboot(other);
    expect(kept.code).toBe(1);
    expect(kept.stderr).toContain(`${other} holds files that are not a netboot folder (notes.txt)`);
    expect(await readdir(other)).toEqual(["notes.txt"]);

    const engine = await netboot(join(dir, "engine"), "--format", "matchbox", "--sign", KEYS);
    expect(engine.code).toBe(1);
    expect(engine.stderr).toContain("Secure Boot does not run");
  }, 600_000);
});

describe("image --out FILE.iso", () => {
  it("writes one hybrid ISO: El Torito for a CD, the ESP as a GPT partition for a disk, the same bytes twice", async () => {
    const isos = [join(dir, "a.iso"), join(dir, "b.iso")];
    for (const iso of isos) {
      const r = await cli([
        "image",
        ...["--manifest", MANIFEST, "--release", release, "--out", iso],
      ]);
      expect(r.stdout).toBe(`Built the amd64 stick as an ISO, ${iso}.\n`);
    }
    const [a, b] = await Promise.all(isos.map((f) => readFile(f)));
    expect(b?.equals(a ?? Buffer.alloc(0))).toBe(true);
    const report = await run("xorriso", ["-indev", isos[0] ?? "", "-report_el_torito", "plain"]);
    expect(report.stdout).toMatch(/El Torito boot img :\s+1\s+UEFI\s+y\s+none/);
    const table = await run("sfdisk", ["--json", isos[0] ?? ""]);
    const parts = JSON.parse(table.stdout).partitiontable.partitions as { type: string }[];
    expect(parts.map((p) => p.type)).toContain("C12A7328-F81F-11D2-BA4B-00A0C93EC93B");
    const probe = await run("blkid", ["-p", "-o", "export", isos[0] ?? ""]);
    expect(probe.stdout).toContain("TYPE=iso9660");
    expect(probe.stdout).toContain("LABEL=LIKEN_STICK");
  }, 600_000);

  it("refuses liken.wipe=1 and writes nothing", async () => {
    const iso = join(dir, "wipe.iso");
    const r = await cli([
      "image",
      ...["--manifest", MANIFEST, "--release", release, "--out", iso],
      ...["--append", "liken.install=auto liken.wipe=1"],
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("liken.wipe=1 on an ISO");
    expect(await stat(iso).catch(() => null)).toBeNull();
  }, 600_000);
});
