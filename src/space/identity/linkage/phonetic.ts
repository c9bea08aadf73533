/**
 * American Soundex (the National Archives' rules): a letter and three digits, so that names that
 * sound alike ("Robert", "Rupert") block together despite their spelling. Blocking keys only:
 * comparisons use Jaro-Winkler. Letters outside a-z are ignored; a name without any has no code.
 */
const CODES: Record<string, string> = {
  b: "1",
  f: "1",
  p: "1",
  v: "1",
  c: "2",
  g: "2",
  j: "2",
  k: "2",
  q: "2",
  s: "2",
  x: "2",
  z: "2",
  d: "3",
  t: "3",
  l: "4",
  m: "5",
  n: "5",
  r: "6",
};

export function soundex(name: string): string {
  const letters = name.toLowerCase().replace(/[^a-z]/g, "");
  const first = letters[0];
  if (first === undefined) return "";
  let code = first.toUpperCase();
  let previous = CODES[first] ?? "";
  for (let i = 1; i < letters.length && code.length < 4; i++) {
    const letter = letters[i] as string;
    const digit = CODES[letter];
    if (digit !== undefined && digit !== previous) code += digit;
    // "h" and "w" do not separate two letters of one code; vowels do.
    if (letter !== "h" && letter !== "w") previous = digit ?? "";
  }
  return code.padEnd(4, "0");
}
