// `liken-stick manifest check FILE`: validates a cluster manifest.
import { parseManifest } from "../../manifest/index.ts";
import { readManifestFile, showProblems } from "../load-manifest.ts";
import { renderManifest } from "../manifest-text.ts";
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
