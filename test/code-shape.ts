// Reads the production code with the TypeScript compiler for the shape rules of
// docs/design.md section 11 that no linter keeps: how long each function is, and whether
// each swallowed error says why (test/code-shape.test.ts holds the rules and their
// exceptions).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = join(import.meta.dirname, "..");

/**
 * Top-level folders that do not ship: tests and their support, benchmarks, scripts, docs.
 * Every other folder is production, so a new one is checked without being named here.
 */
const NOT_PRODUCTION = new Set([
  "bench",
  "bin",
  "dist",
  "docs",
  "examples",
  "node_modules",
  "scripts",
  "test",
  "testing",
]);

/** Every production source file, as a path from the checkout's root. */
export function productionFiles(): string[] {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !NOT_PRODUCTION.has(e.name))
    .flatMap((e) => sourceFiles(e.name))
    .sort();
}

/** The source files under a folder of the checkout, tests left out. */
export function sourceFiles(folder: string): string[] {
  return sourceFilesUnder(join(ROOT, folder))
    .map((path) => relative(ROOT, path))
    .sort();
}

function sourceFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "fixtures" ? [] : sourceFilesUnder(path);
    const source = e.name.endsWith(".ts") && !e.name.endsWith(".d.ts");
    return source && !/\.test\.ts$/.test(e.name) ? [path] : [];
  });
}

function parse(file: string): ts.SourceFile {
  const text = readFileSync(join(ROOT, file), "utf8");
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function lineOf(source: ts.SourceFile, pos: number): number {
  return source.getLineAndCharacterOfPosition(pos).line + 1;
}

export interface FunctionLength {
  /** `file:name`, the name a class method's as `Class.method`. */
  readonly id: string;
  readonly lines: number;
}

/** Every named function, method and function-valued variable of a file, with its length. */
export function functionLengths(file: string): FunctionLength[] {
  const source = parse(file);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    const name = functionName(node);
    if (name !== undefined) {
      const lines = lineOf(source, node.getEnd()) - lineOf(source, node.getStart(source)) + 1;
      found.push({ id: `${file}:${name}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function functionName(node: ts.Node): string | undefined {
  if (ts.isFunctionDeclaration(node)) return node.name?.text ?? "default";
  if (ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node)) {
    const owner = ts.isClassLike(node.parent) ? (node.parent.name?.text ?? "class") : "object";
    const method = ts.isConstructorDeclaration(node) ? "constructor" : node.name.getText();
    return `${owner}.${method}`;
  }
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && node.parent) {
    const holder = node.parent;
    if (ts.isVariableDeclaration(holder) || ts.isPropertyDeclaration(holder))
      return holder.name.getText();
  }
  return undefined;
}

export interface Swallow {
  /** `file:line` of the `catch`. */
  readonly at: string;
  /** Whether a comment says why: on its line or the one above, above its statement, or inside. */
  readonly explained: boolean;
}

/**
 * Every place an error is dropped unseen: a `catch` block, a `.catch(handler)` or the
 * rejection handler of `.then(ok, handler)` that neither reads the error nor throws.
 */
export function swallowedErrors(file: string): Swallow[] {
  const source = parse(file);
  const found: Swallow[] = [];
  const note = (anchor: ts.Node, handler: ts.Node): void => {
    const line = lineOf(source, anchor.getStart(source));
    found.push({ at: `${file}:${line}`, explained: explained(source, anchor, handler) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCatchClause(node) && drops(node.variableDeclaration?.name, node.block)) {
      note(node, node.block);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const handler =
        method === "catch" ? node.arguments[0] : method === "then" ? node.arguments[1] : undefined;
      if (handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) {
        if (drops(handler.parameters[0]?.name, handler.body)) note(node.expression.name, handler);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// Whether a handler drops its error: it never reads it and throws nothing of its own.
function drops(binding: ts.BindingName | undefined, body: ts.Node): boolean {
  const name = binding && ts.isIdentifier(binding) ? binding.text : undefined;
  let used = false;
  let throws = false;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === name) used = true;
    if (ts.isThrowStatement(node)) throws = true;
    // A function made here throws for whoever calls it later, not for this handler.
    if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
  };
  visit(body);
  return !used && !throws;
}

function explained(source: ts.SourceFile, anchor: ts.Node, handler: ts.Node): boolean {
  const line = lineOf(source, anchor.getStart(source));
  const statement = enclosingStatement(anchor);
  const within = (pos: number, from: number, to: number) => pos >= from && pos < to;
  return commentsOf(source).some(
    (pos) =>
      within(pos, handler.getFullStart(), handler.getEnd()) ||
      within(pos, statement.getFullStart(), statement.getStart(source)) ||
      [line - 1, line].includes(lineOf(source, pos)),
  );
}

function enclosingStatement(node: ts.Node): ts.Node {
  let at = node;
  while (at.parent && !ts.isSourceFile(at.parent) && !ts.isBlock(at.parent)) {
    if (ts.isClassElement(at) || ts.isStatement(at)) return at;
    at = at.parent;
  }
  return at;
}

// Where each comment of a file starts: the trivia around its tokens, so text in a string
// or a template that looks like one is not taken for it.
function commentsOf(source: ts.SourceFile): number[] {
  const found = new Set<number>();
  const visit = (node: ts.Node): void => {
    const ranges = [
      ...(ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(source.text, node.getEnd()) ?? []),
    ];
    for (const r of ranges) found.add(r.pos);
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...found];
}
