// netNames() against the real udevadm: each case under hardware/fixtures/net-names/ is a
// sysfs tree captured in a QEMU guest (scripts/capture-net-names.ts) with udevadm.txt, what
// Debian 12's udevadm 252 said inside that guest for every interface: `test-builtin net_id`
// (the ID_NET_NAME_* properties) and `udevadm test` (INTERFACE, the name it gives after
// every rule; the first captures printed only ID_NET_NAME, the same name where no rule
// names the NIC, as in them). The hand-made case is a tree no machine printed: udevadm
// answered in a chroot over it (scripts/udevadm-chroot.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../common/repo-root.ts";
import { netNames } from "./net-names.ts";

const FIXTURES = join(repoRoot(), "hardware/fixtures/net-names");

interface Said {
  readonly netId: Record<string, string>;
  /** The name udev gives. */
  readonly name: string | undefined;
}

/** udevadm.txt: "== IF test-builtin net_id" and "== IF test" sections of KEY=VALUE lines. */
function parseUdevadm(text: string): Map<string, Said> {
  const said = new Map<string, { netId: Record<string, string>; name: string | undefined }>();
  const named = new Set<string>();
  let current: { iface: string; kind: string } | undefined;
  for (const line of text.split("\n")) {
    const head = /^== (\S+) (.+)$/.exec(line);
    if (head) {
      current = { iface: head[1] as string, kind: head[2] as string };
      if (!said.has(current.iface)) said.set(current.iface, { netId: {}, name: undefined });
      continue;
    }
    const kv = /^([A-Z_]+)=(.*)$/.exec(line);
    if (!kv || !current) continue;
    const entry = said.get(current.iface);
    if (!entry) continue;
    if (current.kind === "test-builtin net_id") entry.netId[kv[1] as string] = kv[2] as string;
    else if (kv[1] === "INTERFACE") {
      entry.name = kv[2];
      named.add(current.iface);
    } else if (kv[1] === "ID_NET_NAME" && !named.has(current.iface)) entry.name = kv[2];
  }
  return said;
}

const cases = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

describe.each(cases)("the %s capture", (name) => {
  const root = join(FIXTURES, name);
  const said = parseUdevadm(readFileSync(join(root, "udevadm.txt"), "utf8"));
  it("has udevadm's answers for every interface", () => {
    expect(said.size).toBeGreaterThan(0);
    for (const entry of said.values()) expect(entry.name).toBeDefined();
  });
  it.each([...said.keys()])("names %s as udevadm did", async (iface) => {
    const entry = said.get(iface) as Said;
    const names = await netNames(root, iface);
    expect({
      onboard: names.onboard,
      slot: names.slot,
      path: names.path,
      mac: names.mac,
      label: names.label,
      predictable: names.predictable,
    }).toEqual({
      onboard: entry.netId.ID_NET_NAME_ONBOARD ?? null,
      slot: entry.netId.ID_NET_NAME_SLOT ?? null,
      path: entry.netId.ID_NET_NAME_PATH ?? null,
      mac: entry.netId.ID_NET_NAME_MAC ?? null,
      label: entry.netId.ID_NET_LABEL_ONBOARD ?? null,
      predictable: entry.name === iface ? null : (entry.name ?? null),
    });
  });
});
