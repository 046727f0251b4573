// Reading the manifest a verb was given: every problem printed in the order of the file,
// and the verb refused when one is an error.
import { readFile } from "node:fs/promises";
import { LikenError } from "../common/errors.ts";
import { cannotRead } from "../common/file-errors.ts";
import {
  formatProblem,
  type Manifest,
  type ManifestProblem,
  type ManifestResult,
  parseManifest,
} from "../manifest/index.ts";
import type { Io } from "./verb.ts";

export async function requireManifest(file: string, verb: string, io: Io): Promise<Manifest> {
  const result = parseManifest(await readManifestFile(file), file);
  const refusal = showProblems(result, file, verb, io);
  if (refusal) throw refusal;
  return (result as Extract<ManifestResult, { ok: true }>).manifest;
}

/** The manifest's bytes (parseManifest checks they are UTF-8), or a refusal in plain words. */
export async function readManifestFile(file: string): Promise<Buffer> {
  return readFile(file).catch((error: unknown) => {
    throw new LikenError({
      kind: "refused",
      what: cannotRead(file, error, "a file"),
      hint: ["EACCES", "EPERM"].includes((error as NodeJS.ErrnoException).code ?? "")
        ? "run it as a user that may read the file, or make the file readable"
        : "name the cluster manifest's .toml file",
      reason: "ManifestInvalid",
      cause: error,
    });
  });
}

/**
 * Prints every warning and error as `liken-stick VERB: [warning: ]FILE:LINE:COL: ...`, in
 * the order of the file, and returns the refusal that ends the run when there are errors:
 * the only error itself when it comes last (so it is printed once, as the last line), else
 * a count of the lines above.
 */
export function showProblems(
  result: ManifestResult,
  file: string,
  verb: string,
  io: Io,
): LikenError | undefined {
  const errors = result.ok ? [] : result.errors;
  const all = [
    ...errors.map((p) => ({ p, warning: false })),
    ...result.warnings.map((p) => ({ p, warning: true })),
  ].sort((a, b) => a.p.line - b.p.line || a.p.col - b.p.col);
  const last = all.at(-1);
  const lastIsTheError = errors.length === 1 && last !== undefined && !last.warning;
  for (const { p, warning } of lastIsTheError ? all.slice(0, -1) : all)
    io.err(`liken-stick ${verb}: ${warning ? "warning: " : ""}${formatProblem(p)}\n`);
  if (errors.length === 0) return undefined;
  if (lastIsTheError) return manifestError(errors[0] as ManifestProblem);
  const count = errors.length === 1 ? "1 error" : `${errors.length} errors`;
  return new LikenError({
    kind: "refused",
    what: `the manifest ${file} has ${count}`,
    hint: `fix each line above; docs/manifest.md explains every error`,
    reason: "ManifestInvalid",
  });
}

function manifestError(p: ManifestProblem): LikenError {
  return new LikenError({
    kind: "refused",
    what: `${p.file}:${p.line}:${p.col}: ${p.message}`,
    hint: p.hint,
    reason: "ManifestInvalid",
  });
}
