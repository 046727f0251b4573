// The planner and the installer are shared by the menu and the command line, and their
// hints name the menu's entries ("use wipe and reinstall"). On the command line the same
// advice names the flags that do it; menu/menu-words.ts does the reverse for the menu.

const PHRASES: readonly (readonly [RegExp, string])[] = [
  [/\buse wipe and reinstall as \S+ to replace it\b/g, "run it again with --wipe to replace it"],
  [/\buse wipe and reinstall to replace it\b/g, "add --wipe to replace it"],
  [/\buse wipe and reinstall to install\b/g, "add --wipe to install"],
  [/\brun wipe and reinstall again\b/g, "run the install again with --wipe"],
  [/\bonly when wipe and reinstall names that cluster\b/g, "only when --wipe-cluster names it"],
  [/\bwipe and reinstall erases only (\S+)'s disks\b/g, "--wipe erases only $1's disks"],
  [/\bwipe and reinstall refuses disks\b/g, "--wipe refuses disks"],
];

/** The text with the menu's entries named as the command line's flags. */
export function inCommandLineWords(text: string): string {
  return PHRASES.reduce((t, [phrase, words]) => t.replace(phrase, words), text);
}
