// spec.toml as an operator writes it: the release to run and where to find it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSpec, readSpec, sourceDir } from "./spec.ts";

const FILE = "/media/LIKEN-UPDATE/spec.toml";

describe("parseSpec", () => {
  it("reads a version and a source", () => {
    expect(parseSpec('version = "2.0.0"\nsource = "releases/2.0.0"\n', FILE)).toEqual({
      kind: "spec",
      spec: { version: "2.0.0", source: "releases/2.0.0", rebootNow: false, storage: [] },
    });
  });

  it('reads reboot = "now" and the storage roles, and refuses anything else', () => {
    expect(
      parseSpec(
        'version = "2.0.0"\nreboot = "now"\n[[storage]]\nrole = "data"\nsize = "1GiB"\n[[storage]]\nrole = "scratch"\nsize = "rest"\n',
        FILE,
      ),
    ).toEqual({
      kind: "spec",
      spec: {
        version: "2.0.0",
        source: null,
        rebootNow: true,
        storage: [
          { role: "data", size: 1024 * 1024 * 1024 },
          { role: "scratch", size: "rest" },
        ],
      },
    });
    expect(parseSpec('version = "2.0.0"\nreboot = "later"\n', FILE)).toEqual({
      kind: "invalid",
      message: `${FILE}: reboot may only be "now" (or left out)`,
    });
    expect(
      parseSpec('version = "2.0.0"\n[[storage]]\nrole = "data"\nsize = "big"\n', FILE),
    ).toEqual({
      kind: "invalid",
      message: `${FILE}: each [[storage]] needs a role and a size such as "1GiB" or "rest"`,
    });
  });

  it("reads a version alone, and a pre-release version", () => {
    expect(parseSpec('version = "2.0.0"\n', FILE)).toEqual({
      kind: "spec",
      spec: { version: "2.0.0", source: null, rebootNow: false, storage: [] },
    });
    expect(parseSpec('version = "3.1.0-rc.1"\n', FILE)).toMatchObject({
      spec: { version: "3.1.0-rc.1" },
    });
  });

  it("refuses TOML that does not parse, naming the file", () => {
    const r = parseSpec('version = "2.0.0\n', FILE);
    expect(r.kind).toBe("invalid");
    expect(r).toMatchObject({
      message: expect.stringMatching(/^\/media\/LIKEN-UPDATE\/spec\.toml does not parse: /),
    });
    // One line: the parser's message is cut at its first line.
    expect(r.kind === "invalid" && r.message.includes("\n")).toBe(false);
  });

  it("refuses a version that is missing, not a string, or not a release version", () => {
    for (const text of [
      'source = "releases/2.0.0"\n',
      "version = 2\n",
      'version = "latest"\n',
      'version = "2.0"\n',
      'version = "v2.0.0"\n',
      'version = "2.0.0+build"\n',
    ]) {
      expect(parseSpec(text, FILE), text).toEqual({
        kind: "invalid",
        message: `${FILE}: version must name a release, such as "2.0.0"`,
      });
    }
  });

  it("refuses a source that is absolute, leaves the spec's folder, or is not a string", () => {
    for (const source of [
      '"/srv/releases/2.0.0"',
      '"../releases/2.0.0"',
      '"releases/../../x"',
      '".."',
      "42",
    ]) {
      expect(parseSpec(`version = "2.0.0"\nsource = ${source}\n`, FILE), source).toEqual({
        kind: "invalid",
        message: `${FILE}: source must be a folder inside the spec's own folder`,
      });
    }
  });

  it("accepts a source that only looks like it leaves, but stays inside", () => {
    expect(parseSpec('version = "2.0.0"\nsource = "releases/old/../2.0.0"\n', FILE)).toMatchObject({
      kind: "spec",
      spec: { source: "releases/old/../2.0.0" },
    });
  });
});

describe("parseSpec: a release on a server", () => {
  const DIGEST = "ab".repeat(32);
  const spec = (lines: string) => parseSpec(`version = "2.0.0"\n${lines}`, FILE);
  const invalid = (message: string) => ({ kind: "invalid", message: `${FILE}: ${message}` });
  const BAD_URL =
    'url must be an http:// or https:// address of a release folder, such as "http://10.0.0.5/releases/2.0.0/" (no spaces, user, password, ? or #)';

  it("reads url and release_sha256, the folder ending in / and the digest in lower case", () => {
    expect(spec(`url = "http://10.0.0.5/releases/2.0.0/"\nrelease_sha256 = "${DIGEST}"\n`)).toEqual(
      {
        kind: "spec",
        spec: {
          version: "2.0.0",
          source: null,
          download: { url: "http://10.0.0.5/releases/2.0.0/", releaseSha256: DIGEST },
          rebootNow: false,
          storage: [],
        },
      },
    );
    for (const [url, normal] of [
      ["http://10.0.0.5/releases/2.0.0", "http://10.0.0.5/releases/2.0.0/"],
      ["https://Releases.Example.com:8443/a/b", "https://releases.example.com:8443/a/b/"],
      ["http://[fd00::5]/r/", "http://[fd00::5]/r/"],
      ["HTTP://host", "http://host/"],
      ["http://host/old/../2.0.0", "http://host/2.0.0/"],
    ]) {
      expect(spec(`url = "${url}"\nrelease_sha256 = "${DIGEST.toUpperCase()}"\n`), url).toEqual({
        kind: "spec",
        spec: expect.objectContaining({ download: { url: normal, releaseSha256: DIGEST } }),
      });
    }
  });

  it("refuses a spec with both source and url", () => {
    expect(
      spec(`source = "releases/2.0.0"\nurl = "http://h/r/"\nrelease_sha256 = "${DIGEST}"\n`),
    ).toEqual(
      invalid(
        "give source or url, not both: source names a folder beside the spec, url one on a server",
      ),
    );
  });

  it("refuses a url without release_sha256, and release_sha256 without a url", () => {
    expect(spec('url = "http://h/r/"\n')).toEqual(
      invalid(
        "url needs release_sha256, the sha256 of the release's release.toml (sha256sum release.toml)",
      ),
    );
    expect(spec(`release_sha256 = "${DIGEST}"\n`)).toEqual(
      invalid(
        "release_sha256 goes only with url: name the release's url, or remove release_sha256",
      ),
    );
    expect(spec(`source = "r"\nrelease_sha256 = "${DIGEST}"\n`)).toMatchObject({
      kind: "invalid",
      message: expect.stringContaining("release_sha256 goes only with url"),
    });
  });

  it("refuses a release_sha256 that is not 64 hex digits", () => {
    for (const digest of [
      `"${DIGEST.slice(1)}"`,
      `"${DIGEST}0"`,
      `"${"g".repeat(64)}"`,
      `"sha256:${DIGEST}"`,
      `" ${DIGEST}"`,
      '""',
      "42",
      `["${DIGEST}"]`,
    ]) {
      expect(spec(`url = "http://h/r/"\nrelease_sha256 = ${digest}\n`), digest).toEqual(
        invalid(
          "release_sha256 must be 64 hex digits, the sha256 of the release's release.toml (sha256sum release.toml)",
        ),
      );
    }
  });

  it("refuses a url that is not an absolute http or https address of a folder", () => {
    for (const url of [
      '"ftp://h/r/"',
      '"file:///srv/r/"',
      '"releases/2.0.0"',
      '"/releases/2.0.0"',
      '"//h/r/"',
      '"http:h/r/"',
      '"http:///r/"',
      '"http://"',
      '" http://h/r/"',
      '"http://h/r /"',
      '"http://h/r/\\t"',
      '"http://h\\r/"',
      "'http://h\\r/'",
      '"http://user:secret@h/r/"',
      '"http://user@h/r/"',
      '"http://h/r/?v=2"',
      '"http://h/r/#x"',
      '"http://h:99999/r/"',
      '"http://h/\u00e9/"',
      '""',
      "42",
      '["http://h/r/"]',
    ]) {
      expect(spec(`url = ${url}\nrelease_sha256 = "${DIGEST}"\n`), url).toEqual(invalid(BAD_URL));
    }
  });

  it("names one key in one line for every refusal", () => {
    for (const lines of [
      'url = "nope"\n',
      'url = "http://h/"\nrelease_sha256 = "x"\n',
      'release_sha256 = "x"\n',
    ]) {
      const r = spec(lines);
      expect(r.kind).toBe("invalid");
      expect(r.kind === "invalid" && r.message.includes("\n")).toBe(false);
      expect(r.kind === "invalid" && /\b(url|release_sha256)\b/.test(r.message)).toBe(true);
    }
  });
});

describe("readSpec", () => {
  it("is none without a spec.toml, and resolves source against the spec's folder", async () => {
    const dir = await mkdtemp(join(tmpdir(), "liken-spec-"));
    try {
      const path = join(dir, "spec.toml");
      const none = await readSpec(path);
      expect(none).toEqual({ reading: { kind: "none" }, text: null, folder: dir });
      expect(sourceDir(none)).toBeNull();
      await writeFile(path, 'version = "2.0.0"\nsource = "releases/2.0.0"\n');
      const spec = await readSpec(path);
      expect(spec.reading).toMatchObject({
        kind: "spec",
        spec: { version: "2.0.0", source: "releases/2.0.0" },
      });
      expect(sourceDir(spec)).toBe(join(dir, "releases/2.0.0"));
      await writeFile(path, 'version = "nope"\n');
      const bad = await readSpec(path);
      expect(bad.reading).toMatchObject({
        kind: "invalid",
        message: expect.stringContaining(path),
      });
      expect(sourceDir(bad)).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
