import TOML from "@iarna/toml";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locate } from "./locate.ts";

/** Locates after checking the text is TOML, as parseManifest does. */
function map(text: string) {
  TOML.parse(text);
  return locate(text);
}

describe("locate", () => {
  it("finds top-level keys and their values", () => {
    const m = map('cluster = "x"\n  name   =   5\n');
    expect(m.key("cluster")).toEqual({ line: 1, col: 1 });
    expect(m.value("cluster")).toEqual({ line: 1, col: 11 });
    expect(m.raw("cluster")).toBe('"x"');
    expect(m.key("name")).toEqual({ line: 2, col: 3 });
    expect(m.value("name")).toEqual({ line: 2, col: 14 });
  });

  it("is not fooled by comments that hold = or [", () => {
    const m = map("# a = 1\n# [fake]\na = 2 # b = 3 [x]\n[t] # [[u]]\nb = 1\n");
    expect(m.key("a")).toEqual({ line: 3, col: 1 });
    expect(m.key("b")).toBeUndefined();
    expect(m.key("fake")).toBeUndefined();
    expect(m.key("t")).toEqual({ line: 4, col: 1 });
    expect(m.key("t.b")).toEqual({ line: 5, col: 1 });
    expect(m.key("u")).toBeUndefined();
  });

  it("is not fooled by strings that hold #, ] and quotes", () => {
    const text = [
      'a = "# not a comment ] [x]"',
      "b = 'C:\\path\\# ]'",
      'c = "esc \\" ] # still"',
      "d = 1",
    ].join("\n");
    const m = map(text);
    expect(m.key("b")).toEqual({ line: 2, col: 1 });
    expect(m.key("c")).toEqual({ line: 3, col: 1 });
    expect(m.key("d")).toEqual({ line: 4, col: 1 });
    expect(m.key("x")).toBeUndefined();
  });

  it("skips multi-line strings", () => {
    const text = [
      'a = """',
      "b = 1",
      '[c] ""',
      '"""',
      "d = '''",
      "[e]",
      "x = 2'''",
      'f = """quotes "" inside"""',
      "g = 3",
    ].join("\n");
    const m = map(text);
    expect(m.key("b")).toBeUndefined();
    expect(m.key("c")).toBeUndefined();
    expect(m.key("e")).toBeUndefined();
    expect(m.key("d")).toEqual({ line: 5, col: 1 });
    expect(m.key("f")).toEqual({ line: 8, col: 1 });
    expect(m.key("g")).toEqual({ line: 9, col: 1 });
  });

  it("numbers the elements of multi-line arrays, comments and trailing comma included", () => {
    const text = [
      "ports = [",
      '  "eno1", # first, ] here',
      "",
      '  "eno2"  ,',
      "  'eno3',",
      "]",
      "z = 1",
    ].join("\n");
    const m = map(text);
    expect(m.value("ports")).toEqual({ line: 1, col: 9 });
    expect(m.value("ports.0")).toEqual({ line: 2, col: 3 });
    expect(m.value("ports.1")).toEqual({ line: 4, col: 3 });
    expect(m.value("ports.2")).toEqual({ line: 5, col: 3 });
    expect(m.value("ports.3")).toBeUndefined();
    expect(m.key("z")).toEqual({ line: 7, col: 1 });
  });

  it("locates nested arrays", () => {
    const m = map("a = [[1, 2], [3]]\n");
    expect(m.value("a.0.1")).toEqual({ line: 1, col: 10 });
    expect(m.value("a.1.0")).toEqual({ line: 1, col: 15 });
  });

  it("follows dotted keys at the top level and in tables", () => {
    const m = map('release.version = "1"\n[t]\n  a . "b.c" . d = 2\n');
    expect(m.key("release")).toEqual({ line: 1, col: 1 });
    expect(m.key("release.version")).toEqual({ line: 1, col: 9 });
    expect(m.value("release.version")).toEqual({ line: 1, col: 19 });
    expect(m.key(["t", "a", "b.c", "d"])).toEqual({ line: 3, col: 15 });
    expect(m.key(["t", "a", "b.c"])).toEqual({ line: 3, col: 7 });
  });

  it("reads quoted keys by their text", () => {
    const m = map("\"na\\u006De\" = 1\n'lit' = 2\n");
    expect(m.key("name")).toEqual({ line: 1, col: 1 });
    expect(m.key("lit")).toEqual({ line: 2, col: 1 });
  });

  it("locates keys of inline tables, nested too", () => {
    const m = map('disk = { serial = "S4*", size = { min = 1 } , model="m" }\n');
    expect(m.value("disk")).toEqual({ line: 1, col: 8 });
    expect(m.key("disk.serial")).toEqual({ line: 1, col: 10 });
    expect(m.value("disk.serial")).toEqual({ line: 1, col: 19 });
    expect(m.key("disk.size.min")).toEqual({ line: 1, col: 35 });
    expect(m.key("disk.model")).toEqual({ line: 1, col: 47 });
  });

  it("numbers arrays of tables, each header at its own line", () => {
    const text = [
      "[[machines]]",
      'name = "a"',
      "",
      "  [[ machines ]]",
      'name = "b"',
      'system_disk = { serial = "x" }',
      "[machines.extra]",
      "k = 1",
      "[[machines]]",
    ].join("\n");
    const m = map(text);
    expect(m.key("machines")).toEqual({ line: 1, col: 1 });
    expect(m.key("machines.0")).toEqual({ line: 1, col: 1 });
    expect(m.key("machines.1")).toEqual({ line: 4, col: 3 });
    expect(m.key("machines.1.name")).toEqual({ line: 5, col: 1 });
    expect(m.key("machines.1.system_disk.serial")).toEqual({ line: 6, col: 17 });
    expect(m.key("machines.1.extra")).toEqual({ line: 7, col: 1 });
    expect(m.key("machines.1.extra.k")).toEqual({ line: 8, col: 1 });
    expect(m.key("machines.2")).toEqual({ line: 9, col: 1 });
  });

  it("numbers nested arrays of tables per parent element", () => {
    const text = ["[[a]]", "[[a.b]]", "[[a.b]]", "[[a]]", "[[a.b]]", "x = 1"].join("\n");
    const m = map(text);
    expect(m.key("a.0.b.1")).toEqual({ line: 3, col: 1 });
    expect(m.key("a.1.b.0")).toEqual({ line: 5, col: 1 });
    expect(m.key("a.1.b.0.x")).toEqual({ line: 6, col: 1 });
  });

  it("locates arrays of inline tables", () => {
    const m = map('machines = [\n  { name = "a" },\n  { name = "b", ports = ["x"] },\n]\n');
    expect(m.value("machines.1")).toEqual({ line: 3, col: 3 });
    expect(m.value("machines.1.name")).toEqual({ line: 3, col: 12 });
    expect(m.value("machines.1.ports.0")).toEqual({ line: 3, col: 26 });
  });

  it("keeps the source text of scalars: 1 and 1.0 differ", () => {
    const m = map("a = 1\nb = 1.0\nc = 1_000\nd = 1979-05-27 07:32:00\ne = true\nf = 0x10\n");
    expect(m.raw("a")).toBe("1");
    expect(m.raw("b")).toBe("1.0");
    expect(m.raw("c")).toBe("1_000");
    expect(m.raw("d")).toBe("1979-05-27 07:32:00");
    expect(m.raw("e")).toBe("true");
    expect(m.raw("f")).toBe("0x10");
  });

  it("counts CRLF line endings as one line break", () => {
    const m = map('a = 1\r\n[t]\r\nb = "x"\r\n');
    expect(m.key("t.b")).toEqual({ line: 3, col: 1 });
    expect(m.value("t.b")).toEqual({ line: 3, col: 5 });
  });

  it("finds every key of any document the TOML writer produces, at that key's text", () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
    const scalar = fc.oneof(fc.string(), fc.integer(), fc.boolean());
    const table = fc.dictionary(key, fc.oneof(scalar, fc.array(fc.string(), { maxLength: 3 })), {
      maxKeys: 4,
    });
    const doc = fc.dictionary(
      key,
      fc.oneof(scalar, table, fc.array(table, { minLength: 1, maxLength: 3 })),
      {
        maxKeys: 5,
      },
    );
    fc.assert(
      fc.property(doc, (value) => {
        const text = TOML.stringify(value as TOML.JsonMap);
        const m = map(text);
        const lines = text.split("\n");
        const check = (path: (string | number)[], name: string) => {
          const at = m.key(path) ?? m.value(path);
          expect(at, JSON.stringify(path)).toBeDefined();
          if (at && name !== "") {
            const line = lines[at.line - 1] ?? "";
            expect(line.slice(at.col - 1)).toMatch(new RegExp(`^(\\[\\[?\\s*)?("?)${name}`));
          }
        };
        for (const [k, v] of Object.entries(value)) {
          check([k], k);
          if (Array.isArray(v) && v.some((e) => typeof e === "object")) {
            v.forEach((element, i) => {
              for (const inner of Object.keys(element as object)) check([k, i, inner], inner);
            });
          } else if (typeof v === "object" && !Array.isArray(v)) {
            for (const inner of Object.keys(v)) check([k, inner], inner);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
