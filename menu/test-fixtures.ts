// Data for the model's unit tests: the small test manifest, disks as the inventory would
// classify them, and the plans the real planner makes for them.
import { readFileSync } from "node:fs";
import type { ClaimSummary, Disk } from "../installer/disks/index.ts";
import { planLayout } from "../installer/plan/plan-layout.ts";
import { type Manifest, parseManifest } from "../manifest/index.ts";
import { initModel, update } from "./model.ts";
import type { MachinePlans, MenuData, MenuEvent, Model, Size } from "./types.ts";

const MIB = 1024 * 1024;

export function manifestFrom(file: string): Manifest {
  const result = parseManifest(readFileSync(file, "utf8"), file);
  if (!result.ok) throw new Error(`${file} does not parse`);
  return result.manifest;
}

export const SMALL = manifestFrom("test/fixtures/manifests/good/small.toml");

export function disk(path: string, fields: Partial<Disk> = {}): Disk {
  return {
    path,
    size: 2560 * MIB,
    verdict: "blank",
    reasons: [],
    logicalSectorSize: 512,
    physicalSectorSize: 512,
    rotational: false,
    kind: "file",
    ...fields,
  };
}

export function likenDisk(path: string, claim: Partial<ClaimSummary> = {}): Disk {
  return disk(path, {
    verdict: "liken",
    reasons: ["liken-claim:complete", "partition-table:gpt"],
    model: "QEMU HARDDISK",
    serial: "QM0001",
    claim: {
      cluster: "testcluster",
      machine: "leader-1",
      installId: "6f1c0a55-0000-4000-8000-000000000001",
      release: "1.0.0",
      use: "system",
      complete: true,
      createdAt: "2025-03-01T10:20:30.000Z",
      ...claim,
    },
  });
}

export function menuData(
  disks: readonly Disk[],
  options: { manifest?: Manifest; hwreport?: boolean; shell?: boolean } = {},
): MenuData {
  const manifest = options.manifest ?? SMALL;
  const plans: Record<string, MachinePlans> = {};
  for (const m of manifest.machines) {
    const plan = (wipe: boolean) =>
      planLayout({
        disks,
        manifest,
        machine: m.name,
        release: { version: manifest.release.version, rootfsSize: 260 * 1024 },
        wipe,
        newInstallId: "00000000-0000-4000-8000-000000000000",
      });
    plans[m.name] = { install: plan(false), wipe: plan(true) };
  }
  return {
    cluster: manifest.cluster,
    release: manifest.release.version,
    identity: { vendor: "QEMU", model: "Standard PC (Q35 + ICH9, 2009)", serial: "unknown" },
    machines: manifest.machines.map((m) => m.name),
    disks,
    plans,
    warnings: [],
    features: { hwreport: options.hwreport ?? false, shell: options.shell ?? true },
  };
}

export const SIZE_80X24: Size = { cols: 80, rows: 24 };

/**
 * The model after each event in turn, and every effect asked for on the way except
 * "refresh", which is answered at once with the model's own data, as app.ts answers it
 * with the disks read again.
 */
export function play(
  start: Model | MenuData,
  events: readonly MenuEvent[],
): { model: Model; effects: unknown[] } {
  let model = "screen" in start ? start : initModel(start, SIZE_80X24);
  const effects: unknown[] = [];
  const apply = (e: MenuEvent) => {
    const step = update(model, e);
    model = step.model;
    for (const effect of step.effects) {
      if (effect.type === "refresh") apply({ type: "refreshed", data: model.data });
      else effects.push(effect);
    }
  };
  for (const e of events) apply(e);
  return { model, effects };
}

/** Key events from names: "down", "enter", or one character ("j", "q"). */
export function keys(...names: string[]): MenuEvent[] {
  return names.map((n) =>
    n.length === 1
      ? { type: "key", key: "char", ch: n }
      : { type: "key", key: n as Extract<MenuEvent, { type: "key" }>["key"] },
  );
}

/** Typed text as key events. */
export function typed(text: string): MenuEvent[] {
  return [...text].map((ch) => ({ type: "key", key: "char", ch }));
}
