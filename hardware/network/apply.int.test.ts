// The declared network applied for real, with iproute2's ip and the pinned busybox's arping,
// in two network namespaces of the test's own joined by a veth pair: one the machine (its
// NIC eno1), the other a peer on the same segment (its gateway, or a host that holds the
// machine's addresses already). The network is applied by a process inside the machine's
// namespace (test/netns/apply-network.ts), as the boot agent would; the peer pings it.
// Bonds and VLANs need drivers this host's kernel lacks: the QEMU tests prove those.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkDeclaration } from "../../common/network-declaration.ts";
import { requireUnpackedInputs } from "../../image-build/unpacked.ts";
import { startDnsmasq } from "../../tools/dnsmasq.ts";
import { run } from "../../tools/exec.ts";
import { inNamespace } from "../../tools/ip.ts";
import { UDHCPC_SCRIPT, UDHCPC_SCRIPT_TEXT } from "../../tools/udhcpc.ts";
import { iface } from "./fixtures/declarations.ts";

const id = randomBytes(3).toString("hex");
const namespaces: string[] = [];
let applets: string;

const ip = (...args: string[]) => run("ip", args, { timeoutMs: 10_000 });
const inNs = (ns: string, command: string, ...args: string[]) =>
  run("ip", inNamespace(ns, command, args), { timeoutMs: 20_000 });

beforeAll(async () => {
  // The roots' arping is busybox's applet: the pinned busybox, first on the child's PATH.
  const { busybox } = await requireUnpackedInputs();
  applets = await mkdtemp(join(tmpdir(), "liken-net-applets-"));
  await mkdir(join(applets, "bin"));
  for (const applet of ["arping", "udhcpc"]) await symlink(busybox, join(applets, "bin", applet));
  await writeFile(join(applets, "udhcpc.script"), UDHCPC_SCRIPT_TEXT, { mode: 0o755 });
}, 15 * 60_000);

afterAll(async () => {
  for (const ns of namespaces) {
    // udhcpc keeps renewing in the machine's namespace, as it does on a machine: it goes now.
    const pids = await ip("netns", "pids", ns).then((r) => r.stdout.split("\n").filter((p) => p));
    for (const pid of pids) process.kill(Number(pid));
    await ip("netns", "delete", ns).catch(() => undefined);
  }
  if (applets) await rm(applets, { recursive: true, force: true });
});

/** A machine whose eno1 is cabled to a peer's peer0 (MTU 9000, up, with `peerAddresses`). */
async function segment(
  peerAddresses: readonly string[],
): Promise<{ machine: string; peer: string }> {
  const machine = `lnm${id}${namespaces.length}`;
  const peer = `lnp${id}${namespaces.length}`;
  for (const ns of [machine, peer]) {
    await ip("netns", "add", ns);
    namespaces.push(ns);
    await ip("-n", ns, "link", "set", "lo", "up");
  }
  await ip(
    "-n",
    machine,
    "link",
    "add",
    "eno1",
    "type",
    "veth",
    "peer",
    "name",
    "peer0",
    "netns",
    peer,
  );
  await ip("-n", peer, "link", "set", "peer0", "mtu", "9000", "up");
  // nodad: the peer's addresses are in use at once, as an established host's are.
  for (const a of peerAddresses) await ip("-n", peer, "address", "add", a, "dev", "peer0", "nodad");
  return { machine, peer };
}

interface Applied {
  lines: string[];
  status: {
    interfaces: { name: string; state: string; mtu: number | null; addresses: string[] }[];
  };
  condition: { status: string; reason: string; message: string };
  outcomes: { op: string; result: string; message: string }[];
}

// The child runs in the namespace's own mounts (ip netns exec makes them): the roots' udhcpc
// script at its path, and a /run of its own for the leases and nothing on the host's.
const CHILD = `set -e
mount -t tmpfs tmpfs ${dirname(dirname(UDHCPC_SCRIPT))}
mkdir -p ${dirname(UDHCPC_SCRIPT)}
cp "$1" ${UDHCPC_SCRIPT}
mount -t tmpfs tmpfs /run
shift
exec "$@"
`;

async function apply(ns: string, declaration: NetworkDeclaration): Promise<Applied> {
  const { stdout } = await run(
    "ip",
    inNamespace(ns, "sh", [
      "-c",
      CHILD,
      "sh",
      join(applets, "udhcpc.script"),
      process.execPath,
      "--import",
      "tsx",
      "test/netns/apply-network.ts",
      JSON.stringify(declaration),
    ]),
    { timeoutMs: 60_000, env: { PATH: `${join(applets, "bin")}:${process.env.PATH}` } },
  );
  return JSON.parse(stdout) as Applied;
}

const STATIC: NetworkDeclaration = {
  interfaces: [
    iface({
      name: "eno1",
      mtu: 9000,
      addresses: ["10.88.0.11/24", "fd00:88::11/64"],
      routes: [
        { to: "0.0.0.0/0", via: "10.88.0.1" },
        { to: "::/0", via: "fd00:88::1" },
      ],
    }),
  ],
  nameservers: [],
};

describe("applyNetwork on a veth pair", () => {
  it("configures a port's MTU, IPv4 and IPv6 addresses and routes, which the peer reaches", async () => {
    const { machine, peer } = await segment(["10.88.0.1/24", "fd00:88::1/64"]);
    const applied = await apply(machine, STATIC);
    expect(applied.condition).toEqual({
      status: "True",
      reason: "Configured",
      message: "every declared interface is up with its addresses: eno1",
    });
    expect(applied.lines).toEqual(["network eno1: up, 10.88.0.11/24 fd00:88::11/64"]);
    expect(applied.status).toEqual({
      interfaces: [
        {
          name: "eno1",
          kind: "port",
          state: "up",
          mtu: 9000,
          addresses: ["10.88.0.11/24", "fd00:88::11/64"],
          dhcp: false,
        },
      ],
      nameservers: [],
    });
    // The peer reaches both addresses, with frames as large as the MTU allows unfragmented.
    await inNs(peer, "ping", "-c", "1", "-W", "2", "10.88.0.11");
    await inNs(peer, "ping", "-6", "-c", "1", "-W", "2", "fd00:88::11");
    await inNs(peer, "ping", "-c", "1", "-W", "2", "-M", "do", "-s", "8972", "10.88.0.11");
    const routes = JSON.parse((await ip("-n", machine, "-j", "route", "show", "default")).stdout);
    expect(routes).toMatchObject([{ dst: "default", gateway: "10.88.0.1", dev: "eno1" }]);
    const routes6 = JSON.parse(
      (await ip("-n", machine, "-6", "-j", "route", "show", "default")).stdout,
    );
    expect(routes6).toMatchObject([{ dst: "default", gateway: "fd00:88::1", dev: "eno1" }]);
    // The machine reaches past its gateway's subnet through the default route.
    await ip("-n", peer, "address", "add", "192.0.2.1/32", "dev", "lo");
    await inNs(machine, "ping", "-c", "1", "-W", "2", "192.0.2.1");

    // Applied again on the machine that holds it, every step finds its work done.
    const again = await apply(machine, STATIC);
    expect(again.outcomes.filter((o) => o.result !== "done")).toEqual([]);
    expect(again.condition.reason).toBe("Configured");
  }, 60_000);

  it("leaves out addresses another host holds: AddressConflict by arping and by IPv6 DAD", async () => {
    const { machine, peer } = await segment(["10.88.0.11/24", "fd00:88::11/64"]);
    const applied = await apply(machine, {
      interfaces: [iface({ name: "eno1", addresses: ["10.88.0.11/24", "fd00:88::11/64"] })],
      nameservers: [],
    });
    const peerMac = JSON.parse((await ip("-n", peer, "-j", "link", "show", "peer0")).stdout)[0]
      .address as string;
    expect(applied.condition).toEqual({
      status: "False",
      reason: "AddressConflict",
      message: [
        `eno1: 10.88.0.11/24 is held by another host (${peerMac}) and is not configured; find the host that holds it, or give this machine another address in the manifest`,
        "eno1: fd00:88::11/64 is held by another host (IPv6 duplicate address detection failed) and is not used; find the host that holds it, or give this machine another address in the manifest",
      ].join("; "),
    });
    expect(applied.status.interfaces[0]).toMatchObject({ state: "up", addresses: [] });
    expect(applied.lines).toEqual([
      "network eno1: up",
      `network eno1: 10.88.0.11/24: another host (${peerMac}) answers for 10.88.0.11`,
      "network eno1: IPv6 duplicate address detection: another host answers for fd00:88::11",
    ]);
    // The machine did not take the IPv4 address: the peer still answers for it alone.
    const held = JSON.parse(
      (await ip("-n", machine, "-4", "-j", "address", "show", "eno1")).stdout,
    );
    expect(held).toEqual([]);
  }, 60_000);

  it("takes a DHCP lease beside a static address, and leaves udhcpc renewing it", async () => {
    const { machine, peer } = await segment(["10.89.0.1/24"]);
    const files = await mkdtemp(join(tmpdir(), "liken-net-dnsmasq-"));
    await writeFile(join(files, "dnsmasq.conf"), "");
    const server = await startDnsmasq({
      ns: peer,
      iface: "peer0",
      confFile: join(files, "dnsmasq.conf"),
      range: "10.89.0.50,10.89.0.50,1h",
      leaseFile: join(files, "leases"),
      logFile: join(files, "log"),
    });
    try {
      const applied = await apply(machine, {
        interfaces: [iface({ name: "eno1", addresses: ["10.89.0.11/24"], dhcp: true })],
        nameservers: [],
      });
      expect(applied.condition.reason).toBe("Configured");
      expect(applied.lines).toEqual(["network eno1: up, 10.89.0.11/24 10.89.0.50/24 by DHCP"]);
      expect(applied.status.interfaces[0]?.addresses).toEqual(["10.89.0.11/24", "10.89.0.50/24"]);
      expect(await readFile(join(files, "leases"), "utf8")).toContain("10.89.0.50");
      // udhcpc went to the background with the lease, to renew it for as long as the machine runs.
      const pids = (await ip("netns", "pids", machine)).stdout.split("\n").filter((p) => p);
      const names = await Promise.all(pids.map((p) => readFile(`/proc/${p}/comm`, "utf8")));
      expect(names.map((n) => n.trim())).toContain("udhcpc");
      await inNs(peer, "ping", "-c", "1", "-W", "2", "10.89.0.50");
    } finally {
      server.kill();
      await server.exited;
      await rm(files, { recursive: true, force: true });
    }
  }, 60_000);

  it("says DhcpFailed when no DHCP server answers, and udhcpc goes on asking", async () => {
    const { machine } = await segment(["10.90.0.1/24"]);
    const applied = await apply(machine, {
      interfaces: [iface({ name: "eno1", dhcp: true })],
      nameservers: [],
    });
    expect(applied.condition).toEqual({
      status: "False",
      reason: "DhcpFailed",
      message:
        "eno1: no DHCP server answered, and udhcpc keeps asking; check the DHCP server on eno1's network, or declare a static address",
    });
    expect(applied.lines).toEqual(["network eno1: up, no DHCP lease yet"]);
  }, 60_000);
});
