// [secure_boot] (docs/manifest.md): keep_microsoft left out is the machine's to decide.
import { describe, expect, it } from "vitest";
import { parseManifest } from "./index.ts";

const HEAD = `cluster = "c"
[release]
version = "1.0.0"
[[machines]]
name = "leader-1"
role = "leader"
ports = ["eno1"]
`;

function secureBoot(table: string) {
  const result = parseManifest(`${HEAD}[secure_boot]\n${table}`, "f.toml");
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.manifest.secureBoot;
}

describe("[secure_boot]", () => {
  it("without keep_microsoft leaves it to each machine, and enrolls at once", () => {
    expect(secureBoot("")).toEqual({ keepMicrosoft: undefined, enroll: "force" });
  });

  it.each([true, false])("keep_microsoft = %s is kept as written", (keep) => {
    expect(secureBoot(`keep_microsoft = ${keep}\nenroll = "manual"\n`)).toEqual({
      keepMicrosoft: keep,
      enroll: "manual",
    });
  });
});
