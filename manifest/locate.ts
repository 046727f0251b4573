// Where each key and value of a TOML document is written. TOML parsers return values
// without positions, and a manifest error without a line and column sends the operator
// hunting, so this scans the source once more. It runs only on text that TOML.parse
// accepted: it can trust the syntax, and only has to be exact about what skips what
// (comments, strings, brackets).

/** 1-based line and column; the column counts UTF-16 code units, like the TOML parser's. */
export interface SourcePos {
  readonly line: number;
  readonly col: number;
}

/** Keys and array indices from the document root: ["machines", 1, "system_disk", "serial"]. */
export type KeyPath = readonly (string | number)[];

export interface SourceMap {
  /** Where the key is written: `key =`, a table header, or the `[[header]]` of an element. */
  key(path: KeyPath | string): SourcePos | undefined;
  /** Where the value starts: a scalar, an array's `[`, an inline table's `{`, an element. */
  value(path: KeyPath | string): SourcePos | undefined;
  /** The value's source text, scalars only: it tells `1` from `1.0`, which parsed values do not. */
  raw(path: KeyPath | string): string | undefined;
}

const ROOT_POS: SourcePos = Object.freeze({ line: 1, col: 1 });

/** Position helpers that always answer, falling back to the enclosing table and then 1:1. */
export function keyPos(map: SourceMap, path: KeyPath): SourcePos {
  return map.key(path) ?? map.value(path) ?? tablePos(map, path.slice(0, -1));
}

export function valuePos(map: SourceMap, path: KeyPath): SourcePos {
  return map.value(path) ?? map.key(path) ?? tablePos(map, path.slice(0, -1));
}

/** Where a key missing from the table at `path` belongs: that table's header or key. */
export function tablePos(map: SourceMap, path: KeyPath): SourcePos {
  for (let n = path.length; n > 0; n--) {
    const prefix = path.slice(0, n);
    const found = map.key(prefix) ?? map.value(prefix);
    if (found) return found;
  }
  return ROOT_POS;
}

export function locate(text: string): SourceMap {
  const scan = new Scan(text);
  scan.document();
  return scan.result();
}

/** A map key for a path; in the dotted string form, a segment of digits is an array index. */
function pathId(path: KeyPath | string): string {
  const parts =
    typeof path === "string"
      ? path.split(".").map((p) => (/^[0-9]+$/.test(p) ? Number(p) : p))
      : path;
  return JSON.stringify(parts);
}

const BARE_KEY_CHAR = /[A-Za-z0-9_-]/;
/** Characters that end an unquoted scalar (number, boolean, date-time). */
const SCALAR_END = /[\s,\]}#]/;

class Scan {
  private i = 0;
  private readonly lineStarts: number[] = [0];
  private readonly keys = new Map<string, SourcePos>();
  /** Positions of keys only implied by a dotted key or header; an explicit one wins. */
  private readonly impliedKeys = new Map<string, SourcePos>();
  private readonly values = new Map<string, { pos: SourcePos; raw?: string }>();
  /** Arrays of tables by path id, with how many elements their headers opened so far. */
  private readonly tableArrays = new Map<string, number>();

  constructor(private readonly src: string) {
    for (let k = 0; k < src.length; k++) if (src[k] === "\n") this.lineStarts.push(k + 1);
  }

  result(): SourceMap {
    return {
      key: (p) => this.keys.get(pathId(p)) ?? this.impliedKeys.get(pathId(p)),
      value: (p) => this.values.get(pathId(p))?.pos,
      raw: (p) => this.values.get(pathId(p))?.raw,
    };
  }

  document(): void {
    let table: KeyPath = [];
    while (this.i < this.src.length) {
      const start = this.i;
      this.skipBlank();
      const c = this.src[this.i];
      if (c === undefined) break;
      if (c === "[") table = this.header();
      else this.keyValue(table);
      // Syntax is already checked, so this only guards against looping on a surprise.
      if (this.i === start) this.i++;
    }
  }

  private header(): KeyPath {
    const at = this.pos(this.i);
    const isArray = this.src[this.i + 1] === "[";
    this.i += isArray ? 2 : 1;
    const segments = this.key();
    this.skipSpaces();
    this.i += isArray ? 2 : 1;
    const path: (string | number)[] = [];
    segments.forEach((segment, n) => {
      path.push(segment.name);
      const last = n === segments.length - 1;
      if (last) {
        if (isArray) {
          const id = pathId(path);
          const index = this.tableArrays.get(id) ?? 0;
          this.tableArrays.set(id, index + 1);
          if (!this.keys.has(id)) this.keys.set(id, at);
          path.push(index);
        }
        this.keys.set(pathId(path), at);
        return;
      }
      this.imply(path, segment.pos);
      // A header that names an array of tables means its newest element.
      const count = this.tableArrays.get(pathId(path));
      if (count !== undefined) path.push(count - 1);
    });
    return path;
  }

  private keyValue(table: KeyPath): void {
    const segments = this.key();
    const path = [...table];
    segments.forEach((segment, n) => {
      path.push(segment.name);
      if (n === segments.length - 1) this.keys.set(pathId(path), segment.pos);
      else this.imply(path, segment.pos);
    });
    this.skipSpaces();
    if (this.src[this.i] === "=") this.i++;
    this.skipSpaces();
    this.value(path);
  }

  private imply(path: KeyPath, pos: SourcePos): void {
    const id = pathId(path);
    if (!this.impliedKeys.has(id)) this.impliedKeys.set(id, pos);
  }

  /** A possibly dotted key; leaves the cursor after its last segment. */
  private key(): { name: string; pos: SourcePos }[] {
    const segments: { name: string; pos: SourcePos }[] = [];
    for (;;) {
      this.skipSpaces();
      const pos = this.pos(this.i);
      const c = this.src[this.i];
      const from = this.i;
      let name: string;
      if (c === '"' || c === "'") {
        this.i = this.stringEnd(c, 1);
        const body = this.src.slice(from + 1, this.i - 1);
        name = c === '"' ? decodeBasic(body) : body;
      } else {
        while (this.i < this.src.length && BARE_KEY_CHAR.test(this.src[this.i] as string)) this.i++;
        name = this.src.slice(from, this.i);
      }
      segments.push({ name, pos });
      this.skipSpaces();
      if (this.src[this.i] !== ".") return segments;
      this.i++;
    }
  }

  private value(path: KeyPath): void {
    const from = this.i;
    const pos = this.pos(from);
    const c = this.src[from];
    if (c === "[") {
      this.values.set(pathId(path), { pos });
      this.array(path);
      return;
    }
    if (c === "{") {
      this.values.set(pathId(path), { pos });
      this.inlineTable(path);
      return;
    }
    if (c === '"' || c === "'") {
      const quotes = this.src.startsWith(c.repeat(3), from) ? 3 : 1;
      this.i = this.stringEnd(c, quotes);
    } else {
      this.scalarEnd();
    }
    this.values.set(pathId(path), { pos, raw: this.src.slice(from, this.i) });
  }

  private array(path: KeyPath): void {
    this.i++;
    for (let index = 0; ; index++) {
      this.skipBlank();
      if (this.i >= this.src.length || this.src[this.i] === "]") break;
      const start = this.i;
      this.value([...path, index]);
      this.skipBlank();
      if (this.src[this.i] === ",") this.i++;
      if (this.i === start) break;
    }
    this.i++;
  }

  private inlineTable(path: KeyPath): void {
    this.i++;
    for (;;) {
      this.skipBlank();
      if (this.i >= this.src.length || this.src[this.i] === "}") break;
      const start = this.i;
      this.keyValue(path);
      this.skipBlank();
      if (this.src[this.i] === ",") this.i++;
      if (this.i === start) break;
    }
    this.i++;
  }

  /** Moves past a number, boolean or date-time; a date and a time may be joined by a space. */
  private scalarEnd(): void {
    const from = this.i;
    while (this.i < this.src.length && !SCALAR_END.test(this.src[this.i] as string)) this.i++;
    const datePart = /^\d{4}-\d{2}-\d{2}$/.test(this.src.slice(from, this.i));
    if (datePart && this.src[this.i] === " " && /^\d{2}:/.test(this.src.slice(this.i + 1))) {
      this.i++;
      this.scalarEnd();
    }
  }

  /** The index after the closing quote(s) of the string that opens at the cursor. */
  private stringEnd(quote: string, quotes: 1 | 3): number {
    const escapes = quote === '"';
    let k = this.i + quotes;
    while (k < this.src.length) {
      const c = this.src[k];
      if (escapes && c === "\\") {
        k += 2;
        continue;
      }
      if (quotes === 1 && c === quote) return k + 1;
      if (quotes === 3 && this.src.startsWith(quote.repeat(3), k)) {
        // Up to two quotes may end the content right before the closing three.
        let end = k + 3;
        while (end < k + 5 && this.src[end] === quote) end++;
        return end;
      }
      k++;
    }
    return k;
  }

  private skipSpaces(): void {
    while (this.src[this.i] === " " || this.src[this.i] === "\t") this.i++;
  }

  /** Spaces, newlines and comments: everything between two tokens that carries no meaning. */
  private skipBlank(): void {
    for (;;) {
      const c = this.src[this.i];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") this.i++;
      else if (c === "#") {
        while (this.i < this.src.length && this.src[this.i] !== "\n") this.i++;
      } else return;
    }
  }

  private pos(index: number): SourcePos {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.lineStarts[mid] as number) <= index) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, col: index - (this.lineStarts[low] as number) + 1 };
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  b: "\b",
  t: "\t",
  n: "\n",
  f: "\f",
  r: "\r",
  '"': '"',
  "\\": "\\",
};

/** The text of a basic string's body, so a quoted key compares equal to its parsed name. */
function decodeBasic(body: string): string {
  return body.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, esc: string) => {
    if (esc.length > 1) return String.fromCodePoint(Number.parseInt(esc.slice(1), 16));
    return SIMPLE_ESCAPES[esc] ?? esc;
  });
}
