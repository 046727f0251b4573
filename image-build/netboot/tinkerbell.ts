// Tinkerbell objects for a cluster: a Hardware per machine and a Template per machine.
//
// Hardware: one interface per MAC. netboot.ipxe.url (not `contents`) makes smee answer with a
// script that chains to boot.ipxe, so one script boots every engine's machines. No dhcp.ip:
// liken doesn't know the machines' addresses; smee in proxy or auto-proxy mode leaves them to
// the site's DHCP server and finds the Hardware by MAC (its reservation mode would need ip).
// The CRD takes MACs lower case with colons, as the manifest normalizes them. allowWorkflow
// is false: these machines boot liken, not HookOS.
//
// Template: one per machine, since liken.install=<name> differs. It is for sites that boot
// HookOS and run a Workflow (with netboot.ipxe.url set, HookOS never boots). The hub's kexec
// action loads a kernel only from a filesystem on a block device (BLOCK_DEVICE, FS_TYPE), and
// liken's kernel is on HTTP while the disks are the installer's to wipe; so a plain Alpine
// container fetches both files and runs kexec-tools: `-s` is kexec_file_load, the call that
// action makes, and `pid: host` is what its README says kexec needs. Tinkerbell renders the
// data as a Go template before reading it, so a `{{` of ours is written {{"{{"}}.
//
// Strings are JSON strings, which YAML reads as double-quoted scalars; the characters that
// YAML 1.1 takes as line breaks or refuses raw are escaped too.
//
// Schemas: https://github.com/tinkerbell/tinkerbell/blob/main/api/v1alpha1/tinkerbell/hardware.go
// https://github.com/tinkerbell/tinkerbell/blob/main/api/v1alpha1/tinkerbell/template.go
// https://github.com/tinkerbell/tinkerbell/blob/main/tink/controller/internal/workflow/types.go
// https://github.com/tinkerbell/smee/blob/main/README.md (DHCP modes)
// https://github.com/tinkerbell/actions/blob/main/kexec/README.md
import type { ExportFile, NetbootTarget } from "./netboot-target.ts";

type Machine = NetbootTarget["machines"][number];

const API_VERSION = "tinkerbell.org/v1alpha1";
const CLUSTER_LABEL = "liken-stick/cluster";
const KEXEC_IMAGE = "docker.io/library/alpine:3";
/** The action's `sh -c` script, run by the Alpine image's busybox sh. */
export const KEXEC_SCRIPT = [
  "set -eu",
  "apk add --no-cache kexec-tools",
  'wget -O /tmp/vmlinuz "$LIKEN_KERNEL_URL"',
  'wget -O /tmp/initrd.img "$LIKEN_INITRD_URL"',
  'kexec -s -l /tmp/vmlinuz --initrd=/tmp/initrd.img --command-line="$LIKEN_CMDLINE"',
  "kexec -e",
].join("\n");

export function tinkerbellFiles(t: NetbootTarget): ExportFile[] {
  if (t.machines.length === 0) return [];
  const apply = "# Apply in the namespace Tinkerbell watches: kubectl apply -n NAMESPACE -f";
  return [
    yamlFile("tinkerbell/hardware.yaml", `${apply} hardware.yaml`, t, hardware),
    yamlFile("tinkerbell/template.yaml", `${apply} template.yaml`, t, template),
  ];
}

function yamlFile(
  path: string,
  header: string,
  t: NetbootTarget,
  doc: (t: NetbootTarget, m: Machine) => string[],
): ExportFile {
  const lines = [header, ...t.machines.flatMap((m) => ["---", ...doc(t, m)])];
  return { path, text: `${lines.join("\n")}\n` };
}

function hardware(t: NetbootTarget, m: Machine): string[] {
  return [
    ...objectHead("Hardware", m.name, t.cluster),
    "spec:",
    "  interfaces:",
    ...m.macs.flatMap((mac) => [
      "    - dhcp:",
      `        mac: ${q(mac)}`,
      `        hostname: ${q(m.name)}`,
      `        arch: ${q("x86_64")}`,
      "        uefi: true",
      "      netboot:",
      "        allowPXE: true",
      "        allowWorkflow: false",
      "        ipxe:",
      `          url: ${q(t.ipxeUrl)}`,
    ]),
  ];
}

function template(t: NetbootTarget, m: Machine): string[] {
  return [
    ...objectHead("Template", `liken-${m.name}`, t.cluster),
    "spec:",
    "  data: |",
    ...workflow(t, m).map((line) => `    ${line}`),
  ];
}

function objectHead(kind: string, name: string, cluster: string): string[] {
  return [
    `apiVersion: ${q(API_VERSION)}`,
    `kind: ${q(kind)}`,
    "metadata:",
    `  name: ${q(name)}`,
    "  labels:",
    `    ${CLUSTER_LABEL}: ${q(cluster)}`,
  ];
}

function workflow(t: NetbootTarget, m: Machine): string[] {
  const cmdline = [...t.args, `liken.install=${m.name}`].join(" ");
  return [
    `version: ${q("0.1")}`,
    `name: ${literal(`liken-${m.name}`)}`,
    "global_timeout: 1800",
    "tasks:",
    `  - name: ${q("liken")}`,
    `    worker: ${q("{{.device_1}}")}`,
    "    actions:",
    `      - name: ${q("kexec-liken")}`,
    `        image: ${q(KEXEC_IMAGE)}`,
    "        timeout: 900",
    `        pid: ${q("host")}`,
    "        environment:",
    `          LIKEN_KERNEL_URL: ${literal(t.kernelUrl)}`,
    `          LIKEN_INITRD_URL: ${literal(t.initrdUrl)}`,
    `          LIKEN_CMDLINE: ${literal(cmdline)}`,
    "        command:",
    ...["/bin/sh", "-c", KEXEC_SCRIPT].map((word) => `          - ${q(word)}`),
  ];
}

/** A YAML double-quoted scalar. */
function q(s: string): string {
  return JSON.stringify(s).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A YAML scalar that Tinkerbell's Go template rendering leaves as it is. */
function literal(s: string): string {
  return q(s).replaceAll("{{", '{{"{{"}}');
}
