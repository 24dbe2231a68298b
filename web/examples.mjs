// Writes every file of examples/ as JSON for the playground's menu:
// [{ "path", "title", "source" }] by path, `title` the file's `title "…"`
// directive (escapes `\"` and `\\` read) or its path. Run by web/build.sh:
//   node web/examples.mjs OUT.json
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples');

function walk(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.name.endsWith('.loop')) out.push(full);
  }
  return out;
}

/** The text of a `title "…"` directive at a line's start, if there is one. */
function title(text) {
  const line = text.split('\n').find((l) => l.startsWith('title '));
  if (!line) return null;
  const rest = line.slice('title '.length).trimStart();
  if (!rest.startsWith('"')) return null;
  let out = '';
  for (let i = 1; i < rest.length; i++) {
    const c = rest[i];
    if (c === '"') return out;
    if (c === '\\') {
      if (i + 1 >= rest.length) return null;
      out += rest[++i];
    } else out += c;
  }
  return null;
}

const list = walk(root, [])
  .map((file) => path.relative(root, file).split(path.sep).join('/'))
  .sort()
  .map((rel) => {
    const source = fs.readFileSync(path.join(root, rel), 'utf8');
    return { path: rel, title: title(source) ?? rel, source };
  });
fs.writeFileSync(process.argv[2], JSON.stringify(list));
