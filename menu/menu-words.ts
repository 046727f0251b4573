// The planner's reasons name the command line's flags where only a flag can say it
// ("--wipe-cluster other erases it"); the menu names its own entries instead
// (cli/command-line-words.ts does the reverse for the command line).

const PHRASES: readonly (readonly [RegExp, string])[] = [
  [
    /\(--wipe-cluster (\S+) erases it\)/g,
    "(erased too if you type $1 on the wipe and reinstall screen)",
  ],
  // The repair's hints name its verb; on the menu it is an entry.
  [/\brun the repair again\b/g, "choose Repair the mirror again"],
];

/** The text with the command line's flags named as the menu's entries. */
export function inMenuWords(text: string): string {
  return PHRASES.reduce((t, [phrase, words]) => t.replace(phrase, words), text);
}
