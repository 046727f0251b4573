import { describe, expect, it } from "vitest";
import { matchboxFiles } from "./matchbox.ts";
import type { NetbootTarget } from "./netboot-target.ts";

const REPORT = 'liken.report=http://10.0.0.1:8080/r?x="y"';

const target: NetbootTarget = {
  cluster: "lab",
  kernelUrl: "http://10.0.0.1/liken/vmlinuz",
  initrdUrl: "http://10.0.0.1/liken/initrd.img",
  ipxeUrl: "http://10.0.0.1/liken/boot.ipxe",
  args: ["console=tty0", "liken.payload=http://10.0.0.1/liken/payload", REPORT],
  machines: [
    { name: "node-b", macs: ["52:54:00:00:00:0b"] },
    { name: "node-a", macs: ["52:54:00:00:00:0a", "52:54:00:00:01:0a"] },
  ],
};

interface Profile {
  readonly id: string;
  readonly boot: { readonly kernel: string; readonly initrd: string[]; readonly args: string[] };
}
interface Group {
  readonly id: string;
  readonly profile: string;
  readonly selector: { readonly mac: string };
}

function parsed<T>(prefix: string): Map<string, T> {
  const files = matchboxFiles(target).filter((f) => f.path.startsWith(prefix));
  return new Map(files.map((f) => [f.path, JSON.parse(f.text) as T]));
}

describe("matchboxFiles", () => {
  it("gives every machine a profile that boots liken.install=<name>", () => {
    const profiles = parsed<Profile>("matchbox/profiles/");
    expect([...profiles.keys()]).toEqual([
      "matchbox/profiles/liken-node-a.json",
      "matchbox/profiles/liken-node-b.json",
    ]);
    const a = profiles.get("matchbox/profiles/liken-node-a.json")!;
    expect(a.id).toBe("liken-node-a");
    expect(a.boot.kernel).toBe(target.kernelUrl);
    expect(a.boot.initrd).toEqual(["--name initrd.img http://10.0.0.1/liken/initrd.img"]);
    expect(a.boot.args).toEqual(["initrd=initrd.img", ...target.args, "liken.install=node-a"]);
  });

  it("sends each MAC to its machine's profile", () => {
    const groups = [...parsed<Group>("matchbox/groups/").entries()];
    expect(groups.map(([path, g]) => [path, g.id, g.profile, g.selector.mac])).toEqual([
      [
        "matchbox/groups/liken-node-a-52540000000a.json",
        "liken-node-a-52540000000a",
        "liken-node-a",
        "52:54:00:00:00:0a",
      ],
      [
        "matchbox/groups/liken-node-a-52540000010a.json",
        "liken-node-a-52540000010a",
        "liken-node-a",
        "52:54:00:00:01:0a",
      ],
      [
        "matchbox/groups/liken-node-b-52540000000b.json",
        "liken-node-b-52540000000b",
        "liken-node-b",
        "52:54:00:00:00:0b",
      ],
    ]);
    const profiles = parsed<Profile>("matchbox/profiles/");
    for (const [, g] of groups) {
      expect(profiles.get(`matchbox/profiles/${g.profile}.json`)?.id).toBe(g.profile);
    }
  });

  it("keeps an argument with quotes and colons as it was", () => {
    const a = parsed<Profile>("matchbox/profiles/").get("matchbox/profiles/liken-node-a.json")!;
    expect(a.boot.args).toContain(REPORT);
  });

  it("writes 2-space JSON with a trailing newline, sorted by path", () => {
    const files = matchboxFiles(target);
    expect(files.map((f) => f.path)).toEqual([...files.map((f) => f.path)].sort());
    for (const f of files) {
      expect(f.text).toBe(`${JSON.stringify(JSON.parse(f.text), null, 2)}\n`);
    }
  });

  it("writes nothing for a cluster without MACs", () => {
    expect(matchboxFiles({ ...target, machines: [] })).toEqual([]);
  });
});
