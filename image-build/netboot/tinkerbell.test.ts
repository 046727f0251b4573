import { describe, expect, it } from "vitest";
import type { NetbootTarget } from "./netboot-target.ts";
import { tinkerbellFiles } from "./tinkerbell.ts";

const REPORT = 'liken.report=http://10.0.0.1:8080/r?x="y"';
// Tinkerbell runs a Template's data through Go's text/template: this must not become a MAC.
const BRACES = "liken.note={{.device_1}}";

const target: NetbootTarget = {
  cluster: "lab",
  kernelUrl: "http://10.0.0.1/liken/vmlinuz",
  initrdUrl: "http://10.0.0.1/liken/initrd.img",
  ipxeUrl: "http://10.0.0.1/liken/boot.ipxe",
  args: ["console=tty0", "liken.payload=http://10.0.0.1/liken/payload", REPORT, BRACES],
  machines: [
    { name: "node-a", macs: ["52:54:00:00:00:0a", "52:54:00:00:01:0a"] },
    { name: "node-b", macs: ["52:54:00:00:00:0b"] },
  ],
};

// The Hardware CRD's pattern for dhcp.mac (api/v1alpha1/tinkerbell/hardware.go).
const CRD_MAC = /^([0-9a-f]{2}[:]){5}([0-9a-f]{2})$/;

function file(path: string): string {
  const f = tinkerbellFiles(target).find((x) => x.path === path);
  if (f === undefined) throw new Error(`no ${path}`);
  return f.text;
}

// What Tinkerbell does to a Template's data before it reads the YAML, for the two actions
// the export may write.
function renderGo(data: string, mac: string): string {
  return data.replace(/\{\{(.*?)\}\}/g, (_, action: string) => {
    if (action === ".device_1") return mac;
    if (action === '"{{"') return "{{";
    throw new Error(`unexpected template action {{${action}}}`);
  });
}

describe("tinkerbellFiles", () => {
  it("writes hardware.yaml and template.yaml, ending in a newline", () => {
    const files = tinkerbellFiles(target);
    expect(files.map((f) => f.path)).toEqual([
      "tinkerbell/hardware.yaml",
      "tinkerbell/template.yaml",
    ]);
    for (const f of files) expect(f.text.endsWith("\n")).toBe(true);
  });

  it("describes each machine as a Hardware with one netbooting interface per MAC", () => {
    const docs = readYaml(file("tinkerbell/hardware.yaml")) as Obj[];
    expect(docs.map((d) => [d.apiVersion, d.kind, at(d, "metadata", "name")])).toEqual([
      ["tinkerbell.org/v1alpha1", "Hardware", "node-a"],
      ["tinkerbell.org/v1alpha1", "Hardware", "node-b"],
    ]);
    for (const [i, d] of docs.entries()) {
      const m = target.machines[i]!;
      expect(at(d, "metadata", "labels")).toEqual({ "liken-stick/cluster": "lab" });
      const interfaces = at(d, "spec", "interfaces") as Obj[];
      expect(interfaces.map((x) => at(x, "dhcp", "mac"))).toEqual(m.macs);
      for (const x of interfaces) {
        expect(at(x, "dhcp", "mac")).toMatch(CRD_MAC);
        expect(at(x, "dhcp")).toMatchObject({ hostname: m.name, arch: "x86_64", uefi: true });
        expect(at(x, "netboot")).toEqual({
          allowPXE: true,
          allowWorkflow: false,
          ipxe: { url: target.ipxeUrl },
        });
      }
    }
  });

  it("gives each machine a Template whose workflow kexecs liken with its arguments", () => {
    const docs = readYaml(file("tinkerbell/template.yaml")) as Obj[];
    expect(docs.map((d) => [d.apiVersion, d.kind, at(d, "metadata", "name")])).toEqual([
      ["tinkerbell.org/v1alpha1", "Template", "liken-node-a"],
      ["tinkerbell.org/v1alpha1", "Template", "liken-node-b"],
    ]);
    for (const [i, d] of docs.entries()) {
      const m = target.machines[i]!;
      const data = at(d, "spec", "data") as string;
      const [wf] = readYaml(`---\n${renderGo(data, m.macs[0]!)}`) as Obj[];
      expect(wf).toMatchObject({ version: "0.1", name: `liken-${m.name}` });
      expect(typeof wf?.global_timeout).toBe("number");
      const tasks = at(wf!, "tasks") as Obj[];
      expect(tasks).toHaveLength(1);
      expect(tasks[0]).toMatchObject({ name: "liken", worker: m.macs[0] });
      const actions = at(tasks[0]!, "actions") as Obj[];
      expect(actions).toHaveLength(1);
      const action = actions[0]!;
      expect(action).toMatchObject({ name: "kexec-liken", pid: "host" });
      expect(action.image).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(typeof action.timeout).toBe("number");
      expect(action.environment).toEqual({
        LIKEN_KERNEL_URL: target.kernelUrl,
        LIKEN_INITRD_URL: target.initrdUrl,
        LIKEN_CMDLINE: [...target.args, `liken.install=${m.name}`].join(" "),
      });
      const command = action.command as string[];
      expect(command.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
      expect(command[2]).toContain('--command-line="$LIKEN_CMDLINE"');
      expect(command[2]).toContain("kexec -e");
    }
  });

  it("keeps an argument with quotes, colons and braces as it was", () => {
    const [d] = readYaml(file("tinkerbell/template.yaml")) as Obj[];
    const data = at(d!, "spec", "data") as string;
    const [wf] = readYaml(`---\n${renderGo(data, "52:54:00:00:00:0a")}`) as Obj[];
    const tasks = at(wf!, "tasks") as Obj[];
    const actions = at(tasks[0]!, "actions") as Obj[];
    const cmdline = at(actions[0]!, "environment", "LIKEN_CMDLINE") as string;
    expect(cmdline.split(" ")).toContain(REPORT);
    expect(cmdline.split(" ")).toContain(BRACES);
  });

  it("quotes every string, so no value is read as anything else", () => {
    const odd: NetbootTarget = {
      ...target,
      cluster: "yes",
      ipxeUrl: "http://10.0.0.1/a b#c: d\u2028e\u0085",
    };
    const hw = tinkerbellFiles(odd).find((f) => f.path === "tinkerbell/hardware.yaml")!;
    const [d] = readYaml(hw.text) as Obj[];
    expect(at(d!, "metadata", "labels", "liken-stick/cluster")).toBe("yes");
    const interfaces = at(d!, "spec", "interfaces") as Obj[];
    expect(at(interfaces[0]!, "netboot", "ipxe", "url")).toBe(odd.ipxeUrl);
    expect(hw.text).not.toMatch(/[\u0085\u2028]/);
  });

  it("writes nothing for a cluster without MACs", () => {
    expect(tinkerbellFiles({ ...target, machines: [] })).toEqual([]);
  });
});

// A reader for the YAML this export writes and nothing more: `---` documents of block
// mappings and lists, double-quoted (JSON) strings, true, false, integers and `|` blocks.
// Anything else, an unquoted string above all, throws.
type Yaml = string | number | boolean | Yaml[] | Obj;
interface Obj {
  [key: string]: Yaml;
}
interface Cursor {
  readonly lines: string[];
  i: number;
}

const KEY_LINE = /^([A-Za-z_][\w./-]*):(?: (.*))?$/;

function at(value: Yaml, ...keys: string[]): Yaml {
  return keys.reduce((v, k) => {
    if (typeof v !== "object" || Array.isArray(v) || !(k in v)) throw new Error(`no ${k}`);
    return v[k]!;
  }, value);
}

function readYaml(text: string): Yaml[] {
  const docs = text
    .split("\n")
    .filter((l) => !l.startsWith("#"))
    .join("\n")
    .split(/^---$/m);
  if (docs.shift()?.trim() !== "") throw new Error("text before the first ---");
  return docs.map((doc) => {
    const c: Cursor = { lines: doc.split("\n"), i: 0 };
    const value = node(c, 0);
    skipBlank(c);
    if (c.i < c.lines.length) throw new Error(`unread: ${c.lines[c.i]}`);
    return value;
  });
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function skipBlank(c: Cursor): void {
  while (c.i < c.lines.length && c.lines[c.i]!.trim() === "") c.i++;
}

function node(c: Cursor, indent: number): Yaml {
  skipBlank(c);
  return c.lines[c.i]?.slice(indent).startsWith("- ") ? list(c, indent) : map(c, indent);
}

function list(c: Cursor, indent: number): Yaml[] {
  const out: Yaml[] = [];
  for (skipBlank(c); c.i < c.lines.length; skipBlank(c)) {
    const line = c.lines[c.i]!;
    if (indentOf(line) !== indent || !line.slice(indent).startsWith("- ")) break;
    const rest = line.slice(indent + 2);
    if (KEY_LINE.test(rest)) {
      c.lines[c.i] = `${" ".repeat(indent + 2)}${rest}`;
      out.push(map(c, indent + 2));
    } else {
      out.push(scalar(rest));
      c.i++;
    }
  }
  return out;
}

function map(c: Cursor, indent: number): Obj {
  const out: Obj = {};
  for (skipBlank(c); c.i < c.lines.length; skipBlank(c)) {
    const line = c.lines[c.i]!;
    if (indentOf(line) < indent) break;
    const m = indentOf(line) === indent ? KEY_LINE.exec(line.slice(indent)) : null;
    if (m === null) throw new Error(`not a key of the mapping at ${indent}: ${line}`);
    const [, key, value] = m as unknown as [string, string, string | undefined];
    if (key in out) throw new Error(`duplicate key ${key}`);
    c.i++;
    if (value === "|") out[key] = block(c, indent);
    else if (value !== undefined) out[key] = scalar(value);
    else {
      skipBlank(c);
      const inner = indentOf(c.lines[c.i] ?? "");
      if (inner <= indent) throw new Error(`no value for ${key}`);
      out[key] = node(c, inner);
    }
  }
  return out;
}

function block(c: Cursor, indent: number): string {
  const body: string[] = [];
  while (c.i < c.lines.length) {
    const line = c.lines[c.i]!;
    if (line.trim() !== "" && indentOf(line) <= indent) break;
    body.push(line);
    c.i++;
  }
  while (body.length > 0 && body[body.length - 1]!.trim() === "") body.pop();
  const inner = indentOf(body[0] ?? "");
  if (body.some((l) => l.trim() !== "" && indentOf(l) < inner)) throw new Error("ragged block");
  return `${body.map((l) => l.slice(inner)).join("\n")}\n`;
}

function scalar(s: string): Yaml {
  if (s.startsWith('"')) return JSON.parse(s) as string;
  if (s === "true" || s === "false") return s === "true";
  if (/^\d+$/.test(s)) return Number(s);
  throw new Error(`not a quoted string, a boolean or an integer: ${s}`);
}
