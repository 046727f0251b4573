// What a verb of `liken-stick` is: its words, its help, its options and what it runs.

/** A verb's command line, parsed (cli/args.ts). */
export interface ParsedArgs {
  readonly operands: readonly string[];
  readonly options: Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
}

export interface OptionSpec {
  readonly name: string;
  readonly type: "boolean" | "string";
  readonly multiple?: boolean;
  /** Shown in help: `--name VALUE  summary`. */
  readonly value?: string;
  /**
   * Ends with "(required)" for an option the verb cannot run without: the usage line shows it
   * without brackets, and the command line is refused without it (cli/args.ts).
   */
  readonly summary: string;
}

export interface Verb {
  /** The words that select it, e.g. ["manifest", "check"]. */
  readonly words: readonly string[];
  /** The positional arguments as help shows them, e.g. "FILE" or "[PATH...]". */
  readonly operands: string;
  readonly minOperands: number;
  readonly maxOperands: number;
  readonly summary: string;
  /** Paragraphs after the usage line in `--help`. */
  readonly description: string;
  readonly options: readonly OptionSpec[];
  run(args: ParsedArgs, io: Io): Promise<number>;
}

export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}
