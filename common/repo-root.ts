// The checkout this code runs from, whether as TypeScript sources or as the bundle in
// dist/: the image builder reads its lock files from there.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function repoRoot(): string {
  for (
    let dir = dirname(fileURLToPath(import.meta.url));
    dir !== dirname(dir);
    dir = dirname(dir)
  ) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, "utf8")).name === "liken-stick") return dir;
  }
  throw new Error("not inside a liken-stick checkout: the image builder needs one");
}
