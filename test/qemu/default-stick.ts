// The default stick (examples/cluster.toml, release 1.0.0) that installs leader-1 unattended
// and powers off: the stick an operator builds first, as the server storage tests use it.
import { cachedRelease, cachedStick } from "../../testing/cached-build.ts";

export async function unattendedDefaultStick(): Promise<string> {
  const release = await cachedRelease({ version: "1.0.0" });
  return cachedStick({
    manifest: "examples/cluster.toml",
    releaseDir: release,
    append: ["liken.install=leader-1"],
  });
}
