#!/usr/bin/env node
// Checks the relative links of the documentation: README.md, every *.md under docs/ and
// clients/typescript/README.md when it exists. A link `[text](path)`, `[text](path#anchor)` or
// `[text](#anchor)` must name a file that exists and, with an anchor, a heading of that file
// under GitHub's slug rules. Links with a scheme (https:, mailto:) and autolinks are not checked;
// links inside code (fenced blocks, `inline`) are not links. Prints what is broken and exits 1,
// or prints how many links resolve and exits 0. Plain Node, no dependencies.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function markdownFiles() {
  const files = [join(root, "README.md")];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) files.push(path);
    }
  };
  if (existsSync(join(root, "docs"))) walk(join(root, "docs"));
  const client = join(root, "clients/typescript/README.md");
  if (existsSync(client)) files.push(client);
  return files.filter((file) => existsSync(file));
}

/** The text outside fenced code blocks, line by line (numbers kept for messages). */
function proseLines(text) {
  const lines = [];
  let fence = null;
  for (const [index, line] of text.split("\n").entries()) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (marker && marker[1][0] === fence[0] && marker[1].length >= fence.length) fence = null;
      continue;
    }
    if (marker) {
      fence = marker[1];
      continue;
    }
    lines.push({ number: index + 1, text: line });
  }
  return lines;
}

/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function slug(heading) {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link in a heading keeps its text
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(/ /g, "-");
}

const anchorCache = new Map();

/** Every anchor a file's headings make, duplicates numbered `-1`, `-2` as GitHub does. */
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const anchors = new Set();
  const seen = new Map();
  for (const { text } of proseLines(readFileSync(file, "utf8"))) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** `[text](target)` links of a line, outside inline code. */
function linksOf(line) {
  const withoutCode = line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (code) => " ".repeat(code.length));
  const links = [];
  const pattern = /\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
  for (let match = pattern.exec(withoutCode); match; match = pattern.exec(withoutCode)) links.push(match[1]);
  return links;
}

let checked = 0;
const broken = [];
for (const file of markdownFiles()) {
  const name = relative(root, file);
  for (const { number, text } of proseLines(readFileSync(file, "utf8"))) {
    for (const target of linksOf(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
      checked++;
      const hash = target.indexOf("#");
      const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
      const resolved = path === "" ? file : resolve(dirname(file), path);
      if (!existsSync(resolved)) {
        broken.push(`${name}:${number}: ${target}: no such file ${relative(root, resolved)}`);
        continue;
      }
      if (anchor === null || anchor === "") continue;
      if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) {
        broken.push(`${name}:${number}: ${target}: an anchor into a file that is not Markdown`);
      } else if (!anchorsOf(resolved).has(anchor)) {
        broken.push(`${name}:${number}: ${target}: no heading makes #${anchor} in ${relative(root, resolved)}`);
      }
    }
  }
}

if (broken.length > 0) {
  console.error(broken.join("\n"));
  console.error(`links: ${broken.length} of ${checked} broken`);
  process.exit(1);
}
console.log(`links: ${checked} checked, all resolve`);
