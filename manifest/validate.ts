// The whole manifest: each table's rules, then the rules that span machines.
import { Check } from "./check.ts";
import { TOP_KEYS } from "./keys.ts";
import type { SourceMap } from "./locate.ts";
import { TOP_LEVEL } from "./misplaced.ts";
import type { Findings } from "./problems.ts";
import { isTable, type TomlTable } from "./toml-values.ts";
import type { Machine, Manifest } from "./types.ts";
import { readCluster, readRelease } from "./validate-cluster.ts";
import { readEncryption } from "./validate-encryption.ts";
import { readLayout } from "./validate-layout.ts";
import { readMachine } from "./validate-machine.ts";
import { checkUniqueMatches } from "./validate-match.ts";
import { readSecureBoot } from "./validate-secure-boot.ts";
import { readStorage } from "./validate-storage.ts";
import { checkUniqueAddresses } from "./validate-unique-addresses.ts";

/** The normalized manifest, or undefined when `found` holds an error. */
export function validate(doc: TomlTable, map: SourceMap, found: Findings): Manifest | undefined {
  const ck = new Check(map, found);
  ck.unknownKeys(doc, [], TOP_KEYS, TOP_LEVEL);
  const cluster = readCluster(ck, doc);
  const release = readRelease(ck, doc);
  const layout = readLayout(ck, doc);
  const storage = readStorage(ck, doc);
  const machines = readMachines(ck, doc);
  const secureBoot = readSecureBoot(ck, doc);
  const encryption = readEncryption(ck, doc);
  if (found.hasErrors) return undefined;
  if (!cluster || !release || !layout || !storage || !machines || secureBoot === null)
    return undefined;
  if (encryption === null) return undefined;
  if (encryption && !encryptionFitsMachines(ck, machines)) return undefined;
  return {
    cluster,
    release,
    layout,
    storage,
    machines,
    ...(secureBoot ? { secureBoot } : {}),
    ...(encryption ? { encryption } : {}),
  };
}

// Two members' state partitions, each its own LUKS volume, are not built yet (docs/design.md
// section 12): the agent's mirror copies between plain ones.
function encryptionFitsMachines(ck: Check, machines: readonly Machine[]): boolean {
  const mirrored = machines.findIndex((m) => m.system_disk?.mirror);
  if (mirrored < 0) return true;
  ck.error(
    ck.valuePos(["machines", mirrored, "system_disk"]),
    `machine ${JSON.stringify(machines[mirrored]!.name)} mirrors its system disk, and [encryption] does not take a mirrored system disk yet`,
    "remove mirror = true from its system_disk, or remove [encryption]",
  );
  return false;
}

const MACHINES_HINT = "add a [[machines]] table with name and role for each machine";

function readMachines(ck: Check, doc: TomlTable): Machine[] | undefined {
  const entries = doc.machines;
  if (entries === undefined) {
    ck.error(ck.tablePos([]), "missing [[machines]]", MACHINES_HINT);
    return undefined;
  }
  if (!Array.isArray(entries)) {
    const hint = isTable(entries)
      ? "write [[machines]], with double brackets, for each machine"
      : MACHINES_HINT;
    ck.wrongType(["machines"], entries, "machines", "an array of tables", hint);
    return undefined;
  }
  if (entries.length === 0) {
    ck.error(ck.valuePos(["machines"]), "machines is empty", MACHINES_HINT);
    return undefined;
  }
  const machines: Machine[] = [];
  let complete = true;
  entries.forEach((entry: unknown, index) => {
    const path = ["machines", index];
    if (!isTable(entry)) {
      ck.wrongType(
        path,
        entry,
        "each machine",
        "a table",
        "write each machine as a [[machines]] table",
      );
      complete = false;
      return;
    }
    const machine = readMachine(ck, entry, path);
    if (machine) machines.push(machine);
    else complete = false;
    if (typeof entry.name === "string") checkUniqueName(ck, entries, index, entry.name);
  });
  checkLeaders(ck, entries);
  checkLeaderPorts(ck, entries);
  // With every machine read, machines[i] is entries[i]: the positions point at the file.
  if (complete) {
    checkUniqueMatches(
      ck,
      machines.flatMap((m, index) => (m.match ? [{ index, name: m.name, match: m.match }] : [])),
    );
    checkUniqueAddresses(ck, machines);
  }
  return complete ? machines : undefined;
}

/** Reports the second and later machines with a name, pointing back at the first. */
function checkUniqueName(
  ck: Check,
  entries: readonly unknown[],
  index: number,
  name: string,
): void {
  const first = entries.findIndex((e) => isTable(e) && e.name === name);
  if (first === index) return;
  const firstLine = ck.valuePos(["machines", first, "name"]).line;
  ck.error(
    ck.valuePos(["machines", index, "name"]),
    `duplicate machine name ${JSON.stringify(name)}`,
    `the first ${JSON.stringify(name)} is on line ${firstLine}; each machine needs its own name`,
  );
}

/**
 * The leader count rules. They are judged only when every machine's role is known:
 * with a misspelt role the count is a guess, and a second error about it is noise.
 */
function checkLeaders(ck: Check, entries: readonly unknown[]): void {
  const roles = entries.map((e) => (isTable(e) ? e.role : undefined));
  if (!roles.every((r) => r === "leader" || r === "follower")) return;
  const leaders = roles.filter((r) => r === "leader").length;
  const machinesPos = ck.keyPos(["machines"]);
  if (leaders === 0) {
    ck.error(
      machinesPos,
      'no machine has role "leader"',
      "make at least one machine a leader; the control plane and etcd run on leaders",
    );
  } else if (leaders % 2 === 0) {
    ck.warn(
      machinesPos,
      `${leaders} leaders is an even number`,
      "etcd needs a majority of leaders for quorum, so an odd number (1, 3 or 5) tolerates as many failures with one machine less",
    );
  }
}

/** A leader that waits for no port may start etcd before its network is up. */
function checkLeaderPorts(ck: Check, entries: readonly unknown[]): void {
  entries.forEach((entry, index) => {
    if (!isTable(entry) || entry.role !== "leader") return;
    const ports = entry.ports;
    if (ports !== undefined && !(Array.isArray(ports) && ports.length === 0)) return;
    const path = ["machines", index];
    const pos = ports === undefined ? ck.keyPos(path) : ck.valuePos([...path, "ports"]);
    const who =
      typeof entry.name === "string" ? `leader ${JSON.stringify(entry.name)}` : "a leader";
    ck.warn(
      pos,
      `${who} declares no ports`,
      'it will not wait for its network at boot; list the ports that carry cluster traffic, e.g. ports = ["eno1"]',
    );
  });
}
