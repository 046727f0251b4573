// The shared example is the contract: it must parse as it is, to exactly this manifest.
// The project's copy is checked always; the shared original (repo root/../shared) only
// where it lies beside the checkout, as it does on the team's machines: a clone has only
// the copy.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseManifest } from "./index.ts";

const SHARED = fileURLToPath(new URL("../../shared/examples/cluster.toml", import.meta.url));
const HAS_SHARED = existsSync(SHARED);
const PROJECT = fileURLToPath(new URL("../examples/cluster.toml", import.meta.url));
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

describe("examples/cluster.toml", () => {
  it.skipIf(!HAS_SHARED)("is byte-identical to the shared example", () => {
    expect(readFileSync(PROJECT).equals(readFileSync(SHARED))).toBe(true);
  });

  it.each(HAS_SHARED ? [SHARED, PROJECT] : [PROJECT])(
    "%s parses to the normalized manifest",
    (file) => {
      const result = parseManifest(readFileSync(file, "utf8"), file);
      expect(result).toEqual({
        ok: true,
        warnings: [],
        manifest: {
          cluster: "mycluster",
          release: { version: "1.0.0" },
          layout: { esp: 512 * MiB, slot: 2 * GiB, crash_journal: 64 * MiB, state: 1 * GiB },
          storage: [
            { role: "containerd", size: 20 * GiB },
            { role: "local-volumes", size: "rest" },
          ],
          machines: [
            {
              name: "leader-1",
              role: "leader",
              ports: ["eno1"],
              nameservers: [],
              interfaces: [],
              modules: [],
              reboot_policy: "Manual",
            },
            {
              name: "worker-1",
              role: "follower",
              ports: [],
              nameservers: [],
              interfaces: [],
              modules: [],
              system_disk: { serial: "S4EVNX0N123456" },
              reboot_policy: "Manual",
            },
            {
              name: "worker-2",
              role: "follower",
              ports: [],
              nameservers: [],
              interfaces: [],
              modules: [],
              system_disk: { model: "Samsung SSD 980*", min_size: 200 * GiB },
              reboot_policy: "Manual",
            },
          ],
        },
      });
    },
  );
});
