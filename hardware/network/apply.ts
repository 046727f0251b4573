// Carries out a network plan (plan.ts) step by step and records what each came to. It
// never throws: a step that fails is an outcome, the steps built on what it should have
// made are skipped with the reason, and the rest go on; a machine boots whatever its
// network does (docs/rollback.md, The declared network). Run again on a machine that holds
// the network already, each step finds its work done.
import { writeFileAtomic } from "../../common/atomic-file.ts";
import type { BondMode } from "../../common/network-declaration.ts";
import { resolvConfText } from "../../formats/resolv-conf.ts";
import { probeAddress } from "../../tools/arping.ts";
import { CommandError } from "../../tools/exec.ts";
import {
  addAddress,
  addBond,
  addRoute,
  addVlan,
  enslave,
  listAddresses,
  listLinks,
  setBondOptions,
  setLinkDown,
  setLinkUp,
  setMtu,
} from "../../tools/ip.ts";
import { loadModule } from "../../tools/modprobe.ts";
import { keepLease } from "../../tools/udhcpc.ts";
import { readBonding } from "../bonding.ts";
import { canonical, hostOf } from "./address.ts";
import type { NetworkPlan, NetworkStep } from "./plan.ts";

/**
 * done; failed (`message` says why); skipped (what it needed is missing or failed); taken
 * (another host holds the address); no-lease (no DHCP server answered; udhcpc keeps asking);
 * unsettled (a wait ended at its bound).
 */
export type StepResult = "done" | "failed" | "skipped" | "taken" | "no-lease" | "unsettled";

export interface StepOutcome {
  readonly step: NetworkStep;
  readonly result: StepResult;
  /** One line: what happened when it is not `done` (and a note when it is). */
  readonly message: string;
  /** dhcp: the lease's address in CIDR form. */
  readonly lease?: string;
  /** probe-address: the MAC of the host that answered for it, when it said. */
  readonly holder?: string | null;
}

export interface AppliedNetwork {
  readonly outcomes: readonly StepOutcome[];
}

/** How long a bond may take to join and aggregate its ports (LACP at the fast rate: 3 s). */
export const BOND_WAIT_MS = 10_000;
/** How long the kernel's IPv6 duplicate detection may take: up to 1 s of delay, then 1 s. */
export const DAD_WAIT_MS = 3_000;

type Result = Omit<StepOutcome, "step">;

const DONE: Result = { result: "done", message: "" };

export async function applyNetwork(plan: NetworkPlan): Promise<AppliedNetwork> {
  const below = new Map(plan.interfaces.map((i) => [i.declared.name, i.below]));
  const notBuilt = new Map<string, string>();
  const taken = new Set<string>();
  const outcomes: StepOutcome[] = [];
  for (const step of plan.steps) {
    const name = "name" in step ? step.name : null;
    const missing =
      name === null ? undefined : [name, ...(below.get(name) ?? [])].find((n) => notBuilt.has(n));
    let outcome: Result;
    if (missing !== undefined) outcome = { result: "skipped", message: notBuilt.get(missing)! };
    else if (step.op === "add-address" && taken.has(`${step.name} ${step.address}`))
      outcome = { result: "skipped", message: `another host holds ${hostOf(step.address)}` };
    else outcome = await runStep(step).catch((error: Error) => failed(error));
    if ((step.op === "create-bond" || step.op === "create-vlan") && outcome.result === "failed")
      notBuilt.set(step.name, `${step.name} was not created: ${outcome.message}`);
    if (step.op === "probe-address" && outcome.result === "taken")
      taken.add(`${step.name} ${step.address}`);
    outcomes.push({ step, ...outcome });
  }
  return { outcomes };
}

function failed(error: Error): Result {
  return { result: "failed", message: error.message.split("\n")[0] ?? "" };
}

/**
 * The kernel said the thing is there already: `RTNETLINK answers: File exists`, or with
 * newer kernels' extended errors `Error: ipv4: Address already assigned.`
 */
function exists(error: unknown): boolean {
  return error instanceof CommandError && /File exists|already assigned/i.test(error.stderrTail);
}

async function runStep(step: NetworkStep): Promise<Result> {
  switch (step.op) {
    case "load-module": {
      const loaded = await loadModule(step.module, step.parameters);
      return loaded.ok
        ? DONE
        : { result: "failed", message: `modprobe ${step.module}: ${loaded.error}` };
    }
    case "create-bond":
      return createBond(step.name, step.mode);
    case "set-mtu":
      await setMtu(step.name, step.mtu);
      return DONE;
    case "enslave":
      return joinBond(step.port, step.name);
    case "set-up":
      await setLinkUp(step.name);
      return DONE;
    case "await-bond":
      return awaitBond(step);
    case "create-vlan":
      return createVlan(step.name, step.link, step.id);
    case "probe-address":
      return probe(step.name, step.address);
    case "add-address":
      return addAddress(step.name, step.address).then(
        () => DONE,
        (error: Error) => (exists(error) ? DONE : failed(error)),
      );
    case "await-dad":
      return awaitDad(step.name, step.addresses);
    case "add-route":
      return addRoute(step.name, step.to, step.via).then(
        () => DONE,
        (error: Error) => (exists(error) ? DONE : failed(error)),
      );
    case "dhcp": {
      const lease = await keepLease(step.name);
      return lease
        ? { result: "done", message: "", lease }
        : {
            result: "no-lease",
            message: "no DHCP server answered; udhcpc keeps asking in the background",
          };
    }
    case "write-nameservers":
      await writeFileAtomic(step.file, resolvConfText(step.nameservers), 0o644);
      return DONE;
  }
}

// A bond of that name may be there already: one the driver made as it loaded (when it was
// loaded before, without max_bonds=0), or this plan's on a second run. Its mode is set then.
async function createBond(name: string, mode: BondMode): Promise<Result> {
  try {
    await addBond(name, mode);
    return DONE;
  } catch (error) {
    const there = (await listLinks()).find((l) => l.name === name);
    if (there?.kind !== "bond") throw error;
    if (there.bond?.mode === mode) return { result: "done", message: `${name} was there already` };
    await setLinkDown(name);
    await setBondOptions(name, mode);
    return { result: "done", message: `${name} was there already, in mode ${there.bond?.mode}` };
  }
}

async function joinBond(port: string, bond: string): Promise<Result> {
  const link = (await listLinks()).find((l) => l.name === port);
  if (link?.master === bond) return { result: "done", message: `${port} is in ${bond} already` };
  await enslave(port, bond);
  return DONE;
}

async function createVlan(name: string, link: string, id: number): Promise<Result> {
  try {
    await addVlan(name, link, id);
    return DONE;
  } catch (error) {
    const there = (await listLinks()).find((l) => l.name === name);
    if (there?.vlan?.id === id && there.vlan.link === link)
      return { result: "done", message: `${name} was there already` };
    throw error;
  }
}

async function probe(name: string, address: string): Promise<Result> {
  const host = hostOf(address);
  // This machine holding it already (a second run) is no conflict: arping would hear itself.
  const held = (await listAddresses()).find((l) => l.name === name)?.addresses ?? [];
  if (held.some((a) => canonical(a.local) === canonical(host)))
    return { result: "done", message: `${name} holds ${host} already` };
  const found = await probeAddress(name, host).catch((error: Error) => error);
  if (found instanceof Error)
    return {
      result: "failed",
      message: `not probed, added all the same: ${found.message.split("\n")[0]}`,
    };
  if (found.kind === "free") return DONE;
  return {
    result: "taken",
    message: `another host${found.by ? ` (${found.by})` : ""} answers for ${host}`,
    holder: found.by,
  };
}

// The bond's ports that had carrier join it, and, in 802.3ad, aggregate with a partner.
async function awaitBond(step: Extract<NetworkStep, { op: "await-bond" }>): Promise<Result> {
  const started = Date.now();
  for (;;) {
    const bond = await readBonding(step.name);
    const ports = new Map((bond?.ports ?? []).map((p) => [p.name, p]));
    const joined = step.ports.every((p) => ports.get(p)?.miiStatus === "up");
    const settled =
      bond !== null &&
      joined &&
      (step.mode === "802.3ad"
        ? bond.partnerMac !== null &&
          step.ports.every((p) => ports.get(p)?.aggregatorId === bond.activeAggregatorId)
        : step.ports.length === 0 || bond.activePort !== null);
    if (settled) return DONE;
    if (Date.now() - started >= BOND_WAIT_MS)
      return {
        result: "unsettled",
        message: `${step.name} had not settled after ${BOND_WAIT_MS / 1000} s`,
      };
    await sleep(200);
  }
}

// The kernel's duplicate detection: an address stays tentative until it ends, and is
// marked dadfailed when another host answered for it.
async function awaitDad(name: string, addresses: readonly string[]): Promise<Result> {
  const wanted = new Set(addresses.map((a) => canonical(hostOf(a))));
  const started = Date.now();
  for (;;) {
    const held = ((await listAddresses()).find((l) => l.name === name)?.addresses ?? []).filter(
      (a) => wanted.has(canonical(a.local)),
    );
    const failedDad = held.filter((a) => a.dadFailed).map((a) => a.local);
    const pending = held.filter((a) => a.tentative && !a.dadFailed).map((a) => a.local);
    if (pending.length === 0 && failedDad.length > 0)
      return { result: "taken", message: `another host answers for ${failedDad.join(" and ")}` };
    if (pending.length === 0) return DONE;
    if (Date.now() - started >= DAD_WAIT_MS)
      return {
        result: "unsettled",
        message: `${pending.join(" and ")} still tentative after ${DAD_WAIT_MS / 1000} s (no carrier?)`,
      };
    await sleep(100);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
