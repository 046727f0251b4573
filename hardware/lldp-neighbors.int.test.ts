// The LLDP listen on a real link: two network namespaces of the test's own joined by a
// veth pair, one the machine's NIC and the other the switch's port. The switch sends its
// LLDPDU through socat as a switch would; the listen hears it, and the switch hears the
// stick's own frame. Nothing touches the host's network.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lldpFrame } from "../formats/lldp.ts";
import { run, start } from "../tools/exec.ts";
import { inNamespace } from "../tools/ip.ts";

const id = randomBytes(3).toString("hex");
const MACHINE = `lkm${id}`;
const SWITCH = `lks${id}`;
const MACHINE_MAC = "52:54:00:00:41:01";
const SWITCH_MAC = "00:1c:73:aa:bb:cc";

const ip = (...args: string[]) => run("ip", args, { timeoutMs: 10_000 });

beforeAll(async () => {
  await ip("netns", "add", MACHINE);
  await ip("netns", "add", SWITCH);
  await ip(
    "-n",
    MACHINE,
    "link",
    "add",
    "eno1",
    "address",
    MACHINE_MAC,
    "type",
    "veth",
    "peer",
    "name",
    "et12",
    "netns",
    SWITCH,
  );
  await ip("-n", SWITCH, "link", "set", "et12", "address", SWITCH_MAC, "up");
  await ip("-n", MACHINE, "link", "set", "eno1", "up");
});

afterAll(async () => {
  for (const ns of [MACHINE, SWITCH]) await ip("netns", "delete", ns).catch(() => undefined);
});

// The switch's frame as a leaf switch sends it: chassis MAC, port Ethernet12, VLAN 40.
function switchFrame(): Buffer {
  const base = lldpFrame(SWITCH_MAC, "Ethernet12", "tor-7a");
  const vlan = Buffer.from("fe060080c2010028", "hex"); // 802.1 port VLAN ID TLV: 40
  return Buffer.concat([base.subarray(0, base.length - 2), vlan, Buffer.alloc(2)]);
}

// Each side runs in its namespace as a process of its own (ip netns exec).
const TSX = [process.execPath, "--import", "tsx"] as const;

function inNs(ns: string, script: string, args: readonly string[]) {
  const [node, ...flags] = TSX;
  return inNamespace(ns, node, [...flags, script, ...args]);
}

async function switchSending(frame: Buffer, ms: number) {
  const sw = await start(
    "ip",
    inNs(SWITCH, "test/netns/answer-lldp.ts", ["et12", frame.toString("hex"), String(ms)]),
    {
      stdout: "pipe",
    },
  );
  let out = "";
  sw.stdout?.setEncoding("utf8");
  const ready = new Promise<void>((resolve) =>
    sw.stdout?.on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("ready\n")) resolve();
    }),
  );
  await ready;
  return {
    heard: async () => {
      await sw.exited;
      return JSON.parse(out.split("\n")[1] ?? "null");
    },
  };
}

async function listen(ms: number) {
  const r = await run(
    "ip",
    inNs(MACHINE, "test/netns/listen-lldp.ts", ["eno1", MACHINE_MAC, String(ms)]),
    {
      timeoutMs: 20_000,
    },
  );
  return JSON.parse(r.stdout);
}

describe("listenForNeighbors", () => {
  it("names the switch and port a NIC is cabled to, and the switch hears the stick's frame", async () => {
    const sw = await switchSending(switchFrame(), 5000);
    expect(await listen(3000)).toEqual({
      chassis: SWITCH_MAC,
      systemName: "tor-7a",
      port: "Ethernet12",
      portDescription: null,
      portVlan: 40,
    });
    expect(await sw.heard()).toMatchObject({
      chassis: MACHINE_MAC,
      port: "eno1",
      systemName: "liken-stick leader-1",
    });
  }, 30_000);

  it("hears nothing where no switch speaks LLDP", async () => {
    expect(await listen(1000)).toBeNull();
  }, 30_000);
});
