// liken.install=auto: which manifest machine this hardware is, by each machine's match
// (docs/install.md, Install by the machine's own hardware). Pure: the identity is read
// elsewhere (hardware/machine-identity.ts).
import type { Machine, MachineMatch } from "../../manifest/types.ts";

/** What identifies this machine: its NICs' MACs, the SMBIOS system serial and UUID. */
export interface MachineIdentity {
  /** Lower case, colons. */
  readonly macs: readonly string[];
  readonly serial: string | null;
  /** Lower case. */
  readonly uuid: string | null;
}

/** A machine whose match agreed on some keys but not all. */
export interface NearMatch {
  readonly machine: string;
  readonly agreed: readonly (keyof MachineMatch)[];
  readonly differed: readonly (keyof MachineMatch)[];
}

export type MachineChoice =
  | { readonly kind: "one"; readonly machine: string }
  | { readonly kind: "none"; readonly near: readonly NearMatch[] }
  | { readonly kind: "many"; readonly machines: readonly string[] };

const KEYS: readonly (keyof MachineMatch)[] = ["mac", "serial", "uuid"];

/** The one machine every key of whose match agrees with `identity`, or why there is none. */
export function chooseMachine(
  machines: readonly Machine[],
  identity: MachineIdentity,
): MachineChoice {
  const judged = machines.flatMap((m) => {
    if (!m.match) return [];
    const match = m.match;
    const given = KEYS.filter((k) => match[k] !== undefined);
    const agreed = given.filter((k) => agrees(k, match, identity));
    return [{ machine: m.name, agreed, differed: given.filter((k) => !agreed.includes(k)) }];
  });
  const full = judged.filter((j) => j.differed.length === 0);
  const [only] = full;
  if (full.length === 1 && only) return { kind: "one", machine: only.machine };
  if (full.length > 1) return { kind: "many", machines: full.map((j) => j.machine) };
  return { kind: "none", near: judged.filter((j) => j.agreed.length > 0) };
}

function agrees(key: keyof MachineMatch, match: MachineMatch, id: MachineIdentity): boolean {
  if (key === "mac") return (match.mac ?? []).some((m) => id.macs.includes(m));
  if (key === "serial") return match.serial === id.serial;
  return match.uuid === id.uuid;
}

/** `MACs 52:54:00:..., serial S, uuid U`, for the lines a person reads. */
export function describeIdentity(id: MachineIdentity): string {
  return [
    `MAC${id.macs.length === 1 ? "" : "s"} ${id.macs.join(", ") || "none"}`,
    `serial ${id.serial ?? "unknown"}`,
    `uuid ${id.uuid ?? "unknown"}`,
  ].join(", ");
}
