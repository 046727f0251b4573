// Crash records from /sys/fs/pstore as efi-pstore shows it after a panic: the kernel log
// (fixtures/*.dmesg.txt, in the syslog form pstore dumps, `<level>[time] text`) cut into parts of
// one EFI variable each, newest part first, one file per part.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bootMarker, crashesFromPstore, type PstoreFile } from "./crash-parse.ts";

const SYSRQ = readFileSync(new URL("fixtures/sysrq-panic.dmesg.txt", import.meta.url), "utf8");
const OOPS = readFileSync(new URL("fixtures/oops-then-panic.dmesg.txt", import.meta.url), "utf8");

/** An EFI variable holds 1024 bytes: the "Panic#1 Part1" line, then whole log lines. */
const RECORD_SIZE = 1024;

/**
 * What pstore_dump() writes: Part1 takes the newest whole lines that fit after its header
 * line, Part2 the ones before them, and so on; efi-pstore names each file
 * dmesg-efi-<(seconds * 100 + part) * 1000 + count> and gives it the dump's time.
 */
function efiPstore(log: string, why: string, count: number, time: Date): PstoreFile[] {
  const lines = log.split(/(?<=\n)/);
  const files: PstoreFile[] = [];
  const seconds = Math.floor(time.getTime() / 1000);
  for (let part = 1, end = lines.length; end > 0; part++) {
    const header = `${why}#${count} Part${part}\n`;
    let start = end;
    let size = header.length;
    while (start > 0 && size + (lines[start - 1]?.length ?? 0) <= RECORD_SIZE)
      size += lines[--start]?.length ?? 0;
    if (start === end) throw new Error("a log line longer than a record");
    files.push({
      name: `dmesg-efi-${(BigInt(seconds) * 100n + BigInt(part)) * 1000n + BigInt(count)}`,
      text: header + lines.slice(start, end).join(""),
      mtimeMs: time.getTime(),
    });
    end = start;
  }
  // readdir order: by name, so Part10 would come before Part2.
  return files.sort((x, y) => x.name.localeCompare(y.name));
}

const PANIC_AT = new Date("2026-12-01T04:51:02Z");

describe("crashesFromPstore", () => {
  it("reads a panic split over several efi-pstore files back into one record, in log order", () => {
    const files = efiPstore(SYSRQ, "Panic", 1, PANIC_AT);
    expect(files.length).toBeGreaterThan(2);
    // Part1 holds the newest bytes: the log's last line.
    expect(files.find((f) => f.text.startsWith("Panic#1 Part1\n"))?.text).toMatch(
      /Kernel Offset: 0x1a000000 .*\n$/,
    );
    const records = crashesFromPstore(files);
    expect(records).toHaveLength(1);
    const [crash] = records;
    expect(crash).toMatchObject({
      time: "2026-12-01T04:51:02Z",
      bootId: "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a",
      release: "2.0.0",
      slot: "b",
      kind: "Panic",
    });
    expect(crash?.id).toMatch(/^[0-9a-f]{16}$/);
    const lines = crash?.lines ?? [];
    // The syslog level prefixes are gone; the kernel's timestamps stay.
    expect(lines.some((l) => /^<\d>/.test(l))).toBe(false);
    const panic = lines.indexOf("[   31.101500] Kernel panic - not syncing: sysrq triggered crash");
    expect(panic).toBeGreaterThan(0);
    expect(lines[panic - 1]).toBe("[   31.101234] sysrq: Trigger a crash");
    expect(lines.slice(panic + 1, panic + 4)).toEqual([
      "[   31.101700] CPU: 0 PID: 412 Comm: sh Not tainted 6.1.0-27-amd64 #1  Debian 6.1.115-1",
      "[   31.101900] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 0.0.0 02/06/2015",
      "[   31.102100] Call Trace:",
    ]);
    expect(lines.at(-1)).toMatch(/Kernel Offset: 0x1a000000/);
    // The lines are the log's own, in its order, and no line is cut at a part boundary.
    const log = SYSRQ.trimEnd()
      .split("\n")
      .map((l) => l.replace(/^<\d+>/, ""));
    const first = log.indexOf(lines[0] as string);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(lines).toEqual(log.slice(first, first + lines.length));
  });

  it("keeps the 40 lines before the panic and 30 after it", () => {
    const before = Array.from(
      { length: 100 },
      (_, n) => `<6>[    5.${String(n).padStart(6, "0")}] audit: type=1400 audit(${n}): ok`,
    );
    const after = Array.from(
      { length: 50 },
      (_, n) => `<4>[    9.${String(n).padStart(6, "0")}]  frame_${n}+0x10/0x20`,
    );
    const log = [
      ...before,
      "<0>[    8.000000] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
      ...after,
      "",
    ].join("\n");
    const [crash] = crashesFromPstore(efiPstore(log, "Panic", 1, PANIC_AT));
    expect(crash?.lines).toHaveLength(71);
    expect(crash?.lines[40]).toContain("Kernel panic - not syncing: VFS");
    expect(crash?.lines[0]).toContain("audit(60)");
    expect(crash?.lines.at(-1)).toContain("frame_29+");
  });

  it("gives the same crash the same id whichever order the files are listed in", () => {
    const files = efiPstore(SYSRQ, "Panic", 1, PANIC_AT);
    const [x] = crashesFromPstore(files);
    const [y] = crashesFromPstore([...files].reverse());
    expect(y).toEqual(x);
    const [other] = crashesFromPstore(efiPstore(OOPS, "Panic", 1, PANIC_AT));
    expect(other?.id).not.toBe(x?.id);
  });

  it("keeps two dumps apart: an earlier boot's panic, and an oops and a panic of one boot", () => {
    const earlier = new Date("2026-12-01T03:10:00Z");
    const files = [
      ...efiPstore(SYSRQ, "Panic", 1, PANIC_AT),
      ...efiPstore(OOPS, "Oops", 1, earlier),
      ...efiPstore(OOPS, "Panic", 2, earlier),
    ];
    const records = crashesFromPstore(files);
    expect(records.map((r) => [r.kind, r.time, r.release, r.slot])).toEqual([
      ["Oops", "2026-12-01T03:10:00Z", "1.0.0", "a"],
      ["Panic", "2026-12-01T03:10:00Z", "1.0.0", "a"],
      ["Panic", "2026-12-01T04:51:02Z", "2.0.0", "b"],
    ]);
    const oopsPanic = records[1]?.lines ?? [];
    expect(oopsPanic).toContain("[  842.310400] Oops: 0000 [#1] PREEMPT SMP NOPTI");
    expect(oopsPanic.at(-2)).toBe(
      "[  842.311900] Kernel panic - not syncing: Fatal exception in interrupt",
    );
    expect(records[2]?.lines.join("\n")).not.toContain("nvme");
  });

  it("keeps two panics of the same kind and count from different boots apart", () => {
    const records = crashesFromPstore([
      ...efiPstore(SYSRQ, "Panic", 1, PANIC_AT),
      ...efiPstore(OOPS, "Panic", 1, new Date(PANIC_AT.getTime() - 60_000)),
    ]);
    expect(records.map((r) => r.release)).toEqual(["1.0.0", "2.0.0"]);
  });

  it("ignores files that are not kernel log dumps, and dumps without a part header", () => {
    const records = crashesFromPstore([
      { name: "console-ramoops-0", text: SYSRQ, mtimeMs: PANIC_AT.getTime() },
      { name: "pmsg-ramoops-0", text: "Panic#1 Part1\nhello\n", mtimeMs: PANIC_AT.getTime() },
      { name: "dmesg-efi-1", text: SYSRQ, mtimeMs: PANIC_AT.getTime() },
    ]);
    expect(records).toEqual([]);
  });

  it("leaves boot id, release and slot empty when the agent's marker line is not in the dump", () => {
    const log = SYSRQ.split("\n")
      .filter((l) => !l.includes("liken: boot"))
      .join("\n");
    const [crash] = crashesFromPstore(efiPstore(log, "Panic", 1, PANIC_AT));
    expect(crash).toMatchObject({ bootId: "", release: null, slot: null, kind: "Panic" });
  });

  it("reads the marker line the agent writes, trial or not", () => {
    const id = "3c1f7a52-0d4e-4b6f-9a8b-1c2d3e4f5a6b";
    for (const trial of [true, false]) {
      const marker = bootMarker(id, "3.1.0-rc.1", "a", trial);
      const log = `<5>[    2.000000] ${marker}\n<0>[    9.000000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100\n`;
      const [crash] = crashesFromPstore(efiPstore(log, "Panic", 1, PANIC_AT));
      expect(crash).toMatchObject({ bootId: id, release: "3.1.0-rc.1", slot: "a" });
    }
  });
});
