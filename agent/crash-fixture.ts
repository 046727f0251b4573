// A crash record as the journal keeps one, numbered: for the journal and inspect tests.
import type { CrashRecord } from "./types.ts";

export function sampleCrash(n: number, extraLines = 0): CrashRecord {
  return {
    id: n.toString(16).padStart(16, "0"),
    time: `2026-12-01T04:${String(n % 60).padStart(2, "0")}:00Z`,
    bootId: "0f4c8f3e-9a51-4a8e-b2a4-6f0d1c2e3b4a",
    release: "2.0.0",
    slot: "b",
    kind: "Panic",
    lines: [
      "[   31.101234] sysrq: Trigger a crash",
      `[   31.101500] Kernel panic - not syncing: sysrq triggered crash ${n}`,
      ...Array.from({ length: extraLines }, (_, i) => `[   31.1${i}] frame_${i}+0x10/0x20`),
    ],
  };
}
