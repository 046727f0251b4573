// spec.toml on the state partition, and on an update medium: the release the machine should
// run (docs/rollback.md, Name the release to run). The installer writes the first one; an
// update medium's replaces it.
import TOML from "@iarna/toml";

/** The fields as liken writes them; a document from elsewhere may hold anything. */
export interface SpecDocument {
  readonly version: string;
  /** A release directory, relative to the spec's own folder. */
  readonly source?: string;
  /** Instead of source: a release folder over http or https, fetched by the running machine. */
  readonly url?: string;
  /** With url: the sha256 of that release's release.toml, which vouches for every file. */
  readonly release_sha256?: string;
  readonly reboot?: "now";
  /** [[storage]], as the manifest writes it: sizes such as "1GiB", or "rest". */
  readonly storage?: readonly { readonly role: string; readonly size: string | number }[];
}

/**
 * The document's TOML table; throws TOML's error when it is not TOML. Its fields are not
 * checked: the boot agent checks each before it acts (agent/spec.ts), `inspect` shows what
 * is there.
 */
export function parseSpecDocument(text: string): SpecDocument {
  return TOML.parse(text) as unknown as SpecDocument;
}

/** The spec the installer writes: the installed release, nothing else. */
export function specDocumentText(version: string): string {
  return `version = "${version}"\n`;
}
