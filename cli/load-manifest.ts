// Reading the manifest a verb was given: every problem is printed, and the verb is refused.
import { readFile } from "node:fs/promises";
import { LikenError } from "../common/errors.ts";
import { formatProblem, type Manifest, parseManifest } from "../manifest/index.ts";
import type { Io } from "./verb.ts";

export async function requireManifest(file: string, verb: string, io: Io): Promise<Manifest> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new LikenError({
      kind: "refused",
      what: `cannot read ${file}: ${error.code === "ENOENT" ? "no such file" : error.message}`,
      hint: "check the path to the manifest",
    });
  });
  const result = parseManifest(text, file);
  for (const w of result.warnings) io.err(`liken-stick ${verb}: warning: ${formatProblem(w)}\n`);
  if (result.ok) return result.manifest;
  for (const e of result.errors.slice(1)) io.err(`liken-stick ${verb}: ${formatProblem(e)}\n`);
  const first = result.errors[0];
  throw new LikenError({
    kind: "refused",
    what: first
      ? `${first.file}:${first.line}:${first.col}: ${first.message}`
      : `${file} is not a valid manifest`,
    hint: first?.hint ?? `run liken-stick manifest check ${file}`,
  });
}
