import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzParameters } from "../test/fuzz.ts";
import { formatProblem, type ManifestResult, parseManifest } from "./index.ts";

const VALID = `cluster = "c"
[release]
version = "1.0.0"
[[machines]]
name = "m"
role = "leader"
ports = ["eno1"]
`;

function errors(result: ManifestResult): string[] {
  return result.ok ? [] : result.errors.map(formatProblem);
}

describe("formatProblem", () => {
  it("writes FILE:LINE:COL: message (hint)", () => {
    const p = {
      file: "cluster.toml",
      line: 12,
      col: 1,
      message: 'unknown key "slots"',
      hint: "allowed: slot",
    };
    expect(formatProblem(p)).toBe('cluster.toml:12:1: unknown key "slots" (allowed: slot)');
  });
});

describe("parseManifest", () => {
  it("fills in every default", () => {
    const result = parseManifest(VALID, "f.toml");
    expect(result).toEqual({
      ok: true,
      warnings: [],
      manifest: {
        cluster: "c",
        release: { version: "1.0.0" },
        layout: {
          esp: 512 * 2 ** 20,
          slot: 2 * 2 ** 30,
          crash_journal: 64 * 2 ** 20,
          state: 2 ** 30,
        },
        storage: [],
        machines: [
          {
            name: "m",
            role: "leader",
            ports: ["eno1"],
            nameservers: [],
            interfaces: [],
            modules: [],
            reboot_policy: "Manual",
          },
        ],
      },
    });
  });

  it("returns a deeply frozen result", () => {
    const result = parseManifest(`${VALID}system_disk = { serial = "x" }\n`, "f.toml");
    if (!result.ok) throw new Error(errors(result).join("\n"));
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen(result.manifest.layout)).toBe(true);
    expect(Object.isFrozen(result.manifest.machines[0]?.ports)).toBe(true);
    expect(Object.isFrozen(result.manifest.machines[0]?.system_disk)).toBe(true);
    expect(() => {
      (result.manifest.machines as unknown as unknown[]).push({});
    }).toThrow(TypeError);
  });

  it("accepts integer sizes, sizes in every unit and a version suffix", () => {
    const text = VALID.replace('"1.0.0"', '"1.2.3-rc.1+x"'.replace("+x", ""))
      .concat('reboot_policy = "Manual"\n')
      .replace(
        "[[machines]]",
        '[layout]\nesp = 268435456\nslot = "1TiB"\nstate = "65536KiB"\n[[machines]]',
      );
    const result = parseManifest(text, "f.toml");
    expect(errors(result)).toEqual([]);
    expect(result.ok && result.manifest.layout).toEqual({
      esp: 256 * 2 ** 20,
      slot: 2 ** 40,
      crash_journal: 64 * 2 ** 20,
      state: 64 * 2 ** 20,
    });
    expect(result.ok && result.manifest.release.version).toBe("1.2.3-rc.1");
  });

  it("ignores a byte order mark", () => {
    expect(parseManifest(`\uFEFF${VALID}`, "f.toml").ok).toBe(true);
  });

  it("reports problems sorted by line and column, however they were found", () => {
    const text = 'cluster = "C"\n[[machines]]\nname = "m"\nrole = "x"\n[release]\nversion = "1"\n';
    const lines = errors(parseManifest(text, "f.toml"));
    expect(lines.map((l) => l.split(":").slice(1, 3).map(Number))).toEqual([
      [1, 11],
      [4, 8],
      [6, 11],
    ]);
  });

  it("converts the parser's 0-based positions to 1-based ones", () => {
    expect(errors(parseManifest('cluster = "c"\nrelease = ', "f.toml"))).toEqual([
      "f.toml:2:11: key without value (write a value after the =, e.g. a quoted string)",
    ]);
  });

  it("reports an empty file", () => {
    expect(errors(parseManifest("", "f.toml"))).toEqual([
      'f.toml:1:1: missing key "cluster" (add cluster = "NAME" above the first table, e.g. cluster = "mycluster")',
      'f.toml:1:1: missing table [release] (add [release] with version = "MAJOR.MINOR.PATCH", the release that install puts into slot A)',
      "f.toml:1:1: missing [[machines]] (add a [[machines]] table with name and role for each machine)",
    ]);
  });

  it("says a backslash ends the file, where the parser names a character past the last", () => {
    // @iarna/toml names its end of input as code point 0x110000, which no string holds.
    const result = parseManifest('cluster = "\\', "f.toml");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]?.message).toBe('a "\\" at the end of the file');
  });

  it("never throws, whatever the text", () => {
    const pieces = fc.constantFrom(
      "[[machines]]\n",
      "[release]\n",
      "[layout]\n",
      "[[storage]]\n",
      'name = "a"\n',
      'role = "leader"\n',
      "role = 1\n",
      'size = "rest"\n',
      'size = "2GB"\n',
      "size = 1.5\n",
      'ports = ["a", "a"]\n',
      "[[machines.interfaces]]\n",
      "[machines.interfaces]\n",
      'bond = { ports = ["a", "b"], mode = "802.3ad" }\n',
      'vlan = { link = "a", id = 40 }\n',
      'addresses = ["10.0.0.1/24", "fd00::1/64", "10.0.0.0/8", "x"]\n',
      'routes = [{ to = "0.0.0.0/0", via = "10.0.0.9" }, { to = "::/0" }]\n',
      'nameservers = ["10.0.0.2", "::1", 5]\n',
      "mtu = 1000\n",
      "dhcp = true\n",
      "system_disk = {}\n",
      'system_disk = { min_size = "2GiB", max_size = 1 }\n',
      'cluster = "x"\n',
      'version = "1.0.0"\n',
      'esp = "1MiB"\n',
      "machines = []\n",
      "machines = [{}]\n",
      "# comment [x] = \n",
      '"quoted key" = "]"\n',
      "a.b.c = 1\n",
      "= =\n",
      '"\n',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 12 }), (parts) => {
        const result = parseManifest(parts.join(""), "f.toml");
        for (const p of result.ok ? result.warnings : [...result.errors, ...result.warnings]) {
          expect(p.line).toBeGreaterThanOrEqual(1);
          expect(p.col).toBeGreaterThanOrEqual(1);
          expect(p.message).not.toMatch(/\n/);
          expect(p.hint).not.toMatch(/\n/);
        }
      }),
      fuzzParameters(500),
    );
  });
});

describe("problems in plain words", () => {
  it("names an unexpected character as a character, and says a JSON file is not TOML", () => {
    expect(errors(parseManifest('{"cluster": "c"}\n', "f.toml"))).toEqual([
      'f.toml:1:1: unexpected "{" (the manifest is TOML, not JSON: write key = value lines, as docs/manifest.md shows)',
    ]);
    expect(errors(parseManifest(`${VALID}= 1\n`, "f.toml"))[0]).toMatch(
      /^f\.toml:8:1: unexpected "=" /,
    );
  });

  it("names an unknown escape as it was written", () => {
    expect(errors(parseManifest('cluster = "a\\qb"\n', "f.toml"))[0]).toMatch(
      /^f\.toml:1:\d+: unknown escape "\\q" /,
    );
  });

  it("finds the first byte that is not UTF-8 and says so", () => {
    const bytes = Buffer.concat([
      Buffer.from('cluster = "c"\n# caf'),
      Buffer.from([0xe9]),
      Buffer.from("\n"),
    ]);
    expect(errors(parseManifest(bytes, "f.toml"))).toEqual([
      "f.toml:2:6: a byte that is not UTF-8 (0xe9) (save the manifest as UTF-8; an editor's encoding setting or iconv -t UTF-8 converts it)",
    ]);
  });

  it("reads UTF-8 bytes as the text they are", () => {
    const result = parseManifest(Buffer.from(`# café\n${VALID}`), "f.toml");
    expect(result.ok).toBe(true);
  });

  it("gives a size written as an integer in bytes, with its unit", () => {
    const text = `${VALID}[[storage]]\nrole = "data"\nsize = 20\n`;
    expect(errors(parseManifest(text, "f.toml"))).toEqual([
      'f.toml:10:8: storage.size 20 bytes is too small (storage.size must be at least "64MiB", 67108864 bytes)',
    ]);
  });
});
