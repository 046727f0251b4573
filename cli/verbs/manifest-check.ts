// `liken-stick manifest check FILE`: validates a cluster manifest.
import { formatSize } from "../../common/size.ts";
import { type Manifest, parseManifest } from "../../manifest/index.ts";
import { readManifestFile, showProblems } from "../load-manifest.ts";
import type { Verb } from "../verb.ts";

export const manifestCheck: Verb = {
  words: ["manifest", "check"],
  operands: "FILE",
  minOperands: 1,
  maxOperands: 1,
  summary: "validate a cluster manifest and print it normalized",
  description: `
Reads the cluster manifest FILE (TOML), checks every key against the format in
docs/manifest.md, and prints the manifest with every default filled in. Each
problem is one line FILE:LINE:COL: what is wrong (what is allowed). Warnings
(suspicious but valid values) go to stderr and do not fail the check.

With --json, stdout holds {"ok", "manifest" or "errors", "warnings"}, and
"error" when the check fails; sizes are in bytes there.`,
  options: [{ name: "json", type: "boolean", summary: "print JSON for programs" }],
  async run(args, io) {
    const file = args.operands[0] as string;
    const result = parseManifest(await readManifestFile(file), file);
    const refusal = showProblems(result, file, "manifest check", io);
    if (args.options.json) {
      const body = result.ok
        ? { ok: true, manifest: result.manifest, warnings: result.warnings }
        : { ok: false, errors: result.errors, warnings: result.warnings };
      io.out(`${JSON.stringify(body, null, 2)}\n`);
    } else if (result.ok) {
      io.out(renderManifest(result.manifest));
    }
    if (refusal) throw refusal;
    return 0;
  },
};

/** The normalized manifest as TOML, sizes in binary units, for people. */
function renderManifest(m: Manifest): string {
  const q = (s: string) => JSON.stringify(s);
  const size = (n: number | "rest") => q(n === "rest" ? n : formatSize(n));
  const lines = [
    `cluster = ${q(m.cluster)}`,
    "",
    "[release]",
    `version = ${q(m.release.version)}`,
    "",
    "[layout]",
    ...(["esp", "slot", "crash_journal", "state"] as const).map(
      (k) => `${k} = ${size(m.layout[k])}`,
    ),
  ];
  for (const s of m.storage)
    lines.push("", "[[storage]]", `role = ${q(s.role)}`, `size = ${size(s.size)}`);
  for (const machine of m.machines) {
    lines.push("", "[[machines]]", `name = ${q(machine.name)}`, `role = ${q(machine.role)}`);
    lines.push(`ports = [${machine.ports.map(q).join(", ")}]`);
    if (machine.modules.length > 0)
      lines.push(
        "modules = [",
        ...machine.modules.map(
          (d) => `  { name = ${q(d.name)}, parameters = ${q(d.parameters)} },`,
        ),
        "]",
      );
    if (machine.system_disk) {
      const parts = Object.entries(machine.system_disk).map(
        ([k, v]) => `${k} = ${typeof v === "number" ? size(v) : q(String(v))}`,
      );
      lines.push(`system_disk = { ${parts.join(", ")} }`);
    }
    lines.push(`reboot_policy = ${q(machine.reboot_policy)}`);
  }
  return `${lines.join("\n")}\n`;
}
