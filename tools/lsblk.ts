// lsblk(8): the machine's block devices, read from sysfs and the udev database. The disks are
// listed without it (hardware/disks/block-devices.ts); its tests hold that listing to this one.
import { run } from "./exec.ts";

export interface BlockDevice {
  readonly name: string;
  readonly path: string;
  /** "disk", "part", "loop", "rom", "lvm", "crypt", "raid1", "mpath", ... (zram says "disk") */
  readonly type: string;
  readonly size: number;
  readonly readOnly: boolean;
  readonly removable: boolean;
  readonly rotational: boolean;
  readonly transport?: string;
  readonly model?: string;
  readonly serial?: string;
  readonly wwn?: string;
  readonly logicalSectorSize: number;
  readonly physicalSectorSize: number;
  /** Mount points, with "[SWAP]" for active swap, as lsblk prints them. */
  readonly mountpoints: readonly string[];
  readonly fstype?: string;
  readonly partuuid?: string;
  readonly partlabel?: string;
  readonly children: readonly BlockDevice[];
}

const COLUMNS = [
  "NAME",
  "PATH",
  "TYPE",
  "SIZE",
  "RO",
  "RM",
  "ROTA",
  "TRAN",
  "MODEL",
  "SERIAL",
  "WWN",
  "LOG-SEC",
  "PHY-SEC",
  "MOUNTPOINTS",
  "FSTYPE",
  "PARTUUID",
  "PARTLABEL",
];

type Raw = Record<string, unknown> & { children?: Raw[] };

/** Every block device as a tree (disks with their partitions and holders), or just `paths`. */
export async function listBlockDevices(paths: readonly string[] = []): Promise<BlockDevice[]> {
  const { stdout } = await run(
    "lsblk",
    [
      "--json",
      "--bytes", // sizes as numbers, not "8G"
      "--tree", // children nested under their parents
      "--output",
      COLUMNS.join(","),
      ...paths,
    ],
    { timeoutMs: 30_000 },
  );
  const parsed = JSON.parse(stdout) as { blockdevices?: Raw[] };
  return (parsed.blockdevices ?? []).map(toDevice);
}

function toDevice(raw: Raw): BlockDevice {
  const text = (key: string) => {
    const v = raw[key];
    return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
  };
  const flag = (key: string) => raw[key] === true || raw[key] === "1";
  const optional = (key: string, name: string) => (text(key) ? { [name]: text(key) } : {});
  return {
    name: String(raw.name),
    path: String(raw.path),
    type: String(raw.type),
    size: Number(raw.size ?? 0),
    readOnly: flag("ro"),
    removable: flag("rm"),
    rotational: flag("rota"),
    ...optional("tran", "transport"),
    ...optional("model", "model"),
    ...optional("serial", "serial"),
    ...optional("wwn", "wwn"),
    logicalSectorSize: Number(raw["log-sec"] ?? 512),
    physicalSectorSize: Number(raw["phy-sec"] ?? 512),
    mountpoints: ((raw.mountpoints as (string | null)[] | undefined) ?? []).filter(
      (m): m is string => typeof m === "string",
    ),
    ...optional("fstype", "fstype"),
    ...optional("partuuid", "partuuid"),
    ...optional("partlabel", "partlabel"),
    children: (raw.children ?? []).map(toDevice),
  } as BlockDevice;
}
