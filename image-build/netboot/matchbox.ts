// matchbox's data folder for a cluster: one profile per machine (its kernel, initrd and
// liken.install=<name>) and one group per MAC that sends that NIC to the machine's profile.
// matchbox reads profiles/<id>.json and groups/<id>.json, and a group's `profile` must be the
// profile's id, so file names and ids agree. The initrd is loaded with `--name initrd.img`, as
// matchbox's Fedora CoreOS example does with `--name main` and `initrd=main`: matchbox writes
// each initrd entry after iPXE's `initrd` command, and the kernel's EFI stub finds the initrd
// by that name whatever the URL ends with. (matchbox's GRUB endpoint cannot take `--name`;
// liken boots through iPXE.)
// Schemas: https://github.com/poseidon/matchbox/blob/main/docs/matchbox.md (Profiles, Groups),
// https://github.com/poseidon/matchbox/blob/main/docs/api-http.md (the rendered iPXE script),
// https://github.com/poseidon/matchbox/blob/main/examples/profiles/fedora-coreos.json,
// https://github.com/poseidon/matchbox/blob/main/matchbox/storage/storagepb/storage.proto
import type { ExportFile, NetbootTarget } from "./netboot-target.ts";

const INITRD_NAME = "initrd.img";

export function matchboxFiles(t: NetbootTarget): ExportFile[] {
  const files = t.machines.flatMap((m) => {
    const profileId = `liken-${m.name}`;
    const profile = {
      id: profileId,
      name: `liken ${t.cluster} ${m.name}`,
      boot: {
        kernel: t.kernelUrl,
        initrd: [`--name ${INITRD_NAME} ${t.initrdUrl}`],
        args: [`initrd=${INITRD_NAME}`, ...t.args, `liken.install=${m.name}`],
      },
    };
    const groups = m.macs.map((mac) => {
      const id = `${profileId}-${mac.replaceAll(":", "")}`;
      const group = {
        id,
        name: `liken ${t.cluster} ${m.name} ${mac}`,
        profile: profileId,
        selector: { mac },
      };
      return jsonFile(`matchbox/groups/${id}.json`, group);
    });
    return [jsonFile(`matchbox/profiles/${profileId}.json`, profile), ...groups];
  });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function jsonFile(path: string, value: unknown): ExportFile {
  return { path, text: `${JSON.stringify(value, null, 2)}\n` };
}
