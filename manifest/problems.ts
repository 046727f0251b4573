// Problems as they are found, and as the operator reads them: `FILE:LINE:COL: message (hint)`.
import type { SourcePos } from "./locate.ts";
import type { ManifestProblem } from "./types.ts";

export function formatProblem(p: ManifestProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.message} (${p.hint})`;
}

interface Finding {
  readonly pos: SourcePos;
  readonly message: string;
  readonly hint: string;
}

/** Collects every problem rather than stopping at the first: one run, one list to fix. */
export class Findings {
  private readonly errorList: Finding[] = [];
  private readonly warningList: Finding[] = [];

  error(pos: SourcePos, message: string, hint: string): void {
    this.errorList.push({ pos, message, hint });
  }

  warn(pos: SourcePos, message: string, hint: string): void {
    this.warningList.push({ pos, message, hint });
  }

  get hasErrors(): boolean {
    return this.errorList.length > 0;
  }

  errors(file: string): ManifestProblem[] {
    return inFileOrder(this.errorList, file);
  }

  warnings(file: string): ManifestProblem[] {
    return inFileOrder(this.warningList, file);
  }
}

/** Sorted by line, then column; problems at the same place keep the order they were found in. */
function inFileOrder(findings: readonly Finding[], file: string): ManifestProblem[] {
  return findings
    .map(({ pos, message, hint }) => ({ file, line: pos.line, col: pos.col, message, hint }))
    .sort((a, b) => a.line - b.line || a.col - b.col);
}
