// match: the hardware that is this machine, so a stick or a netboot with liken.install=auto
// finds its own name: any NIC's MAC, the SMBIOS system serial, the SMBIOS system UUID.
import type { Check } from "./check.ts";
import { MATCH_KEYS } from "./keys.ts";
import type { KeyPath } from "./locate.ts";
import { isTable, type TomlTable } from "./toml-values.ts";
import type { MachineMatch } from "./types.ts";

const MAC = /^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The match, normalized (MACs lower case with colons, the UUID lower case); null after reporting. */
export function readMatch(
  ck: Check,
  machine: TomlTable,
  machinePath: KeyPath,
): MachineMatch | null {
  const path = [...machinePath, "match"];
  const value = machine.match;
  if (!isTable(value)) {
    ck.wrongType(path, value, "match", "a table", 'write match = { mac = ["52:54:00:12:34:56"] }');
    return null;
  }
  ck.unknownKeys(value, path, MATCH_KEYS, "in match");
  if (!MATCH_KEYS.some((k) => value[k] !== undefined)) {
    ck.error(
      ck.valuePos(path),
      "match names no hardware",
      `give at least one of ${MATCH_KEYS.join(", ")}, or leave match out`,
    );
    return null;
  }
  const match: { -readonly [K in keyof MachineMatch]: MachineMatch[K] } = {};
  let ok = true;
  if (value.mac !== undefined) {
    const macs = readMacs(ck, value.mac, [...path, "mac"]);
    if (macs) match.mac = macs;
    else ok = false;
  }
  if (value.serial !== undefined) {
    const serial = value.serial;
    if (typeof serial !== "string" || serial.trim() === "") {
      ck.wrongType(
        [...path, "serial"],
        serial,
        "match.serial",
        "a non-empty string",
        'write the SMBIOS system serial the hardware report shows, e.g. serial = "7XK2Q93"',
      );
      ok = false;
    } else match.serial = serial.trim();
  }
  if (value.uuid !== undefined) {
    const uuid = value.uuid;
    if (typeof uuid !== "string" || !UUID.test(uuid)) {
      ck.error(
        ck.valuePos([...path, "uuid"]),
        `match.uuid ${JSON.stringify(uuid)} is not a UUID`,
        'write the SMBIOS system UUID the hardware report shows, e.g. uuid = "4c4c4544-0058-4b10-8032-b7c04f513933"',
      );
      ok = false;
    } else match.uuid = uuid.toLowerCase();
  }
  return ok ? match : null;
}

function readMacs(ck: Check, value: unknown, path: KeyPath): string[] | undefined {
  const hint = 'write mac = ["52:54:00:12:34:56"], one or more of the machine\'s NICs';
  if (!Array.isArray(value) || value.length === 0) {
    ck.wrongType(path, value, "match.mac", "a non-empty array of strings", hint);
    return undefined;
  }
  const macs: string[] = [];
  let ok = true;
  value.forEach((mac: unknown, i) => {
    if (typeof mac !== "string" || !MAC.test(mac)) {
      ck.error(
        ck.valuePos([...path, i]),
        `match.mac ${JSON.stringify(mac)} is not a MAC address`,
        "write six hexadecimal pairs joined by colons, e.g. 52:54:00:12:34:56",
      );
      ok = false;
      return;
    }
    macs.push(mac.toLowerCase().replaceAll("-", ":"));
  });
  return ok ? macs : undefined;
}

/**
 * Two machines that name the same MAC, serial or UUID: the same hardware would match
 * both, so auto could never choose. Reported at the second, pointing back at the first.
 */
export function checkUniqueMatches(
  ck: Check,
  matches: readonly {
    readonly index: number;
    readonly name: string;
    readonly match: MachineMatch;
  }[],
): void {
  const seen = new Map<string, string>();
  for (const { index, name, match } of matches) {
    const facts: [string, string, KeyPath][] = [
      ...(match.mac ?? []).map((m, i): [string, string, KeyPath] => [
        `mac ${m}`,
        m,
        ["machines", index, "match", "mac", i],
      ]),
      ...(match.serial
        ? [
            [`serial ${match.serial}`, match.serial, ["machines", index, "match", "serial"]] as [
              string,
              string,
              KeyPath,
            ],
          ]
        : []),
      ...(match.uuid
        ? [
            [`uuid ${match.uuid}`, match.uuid, ["machines", index, "match", "uuid"]] as [
              string,
              string,
              KeyPath,
            ],
          ]
        : []),
    ];
    for (const [key, shown, path] of facts) {
      const first = seen.get(key);
      if (first && first !== name)
        ck.error(
          ck.valuePos(path),
          `${key.split(" ")[0]} ${JSON.stringify(shown)} is also in the match of ${first}`,
          "a piece of hardware matches one machine: remove it from one of them",
        );
      else seen.set(key, name);
    }
  }
}
