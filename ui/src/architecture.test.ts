// The UI's rooms, checked like the core's floors (src-tauri/core/tests/architecture.rs): this test
// reads every import in ui/src and fails on one that breaks a rule, naming the file, the import
// and the rule. The rooms are the folders; a module file and its folder (`lib/transport.ts` beside
// `lib/transport/`, `lib/i18n.ts` beside `lib/i18n/`) are one room, as `foo.rs` and `foo/` are one
// module in the core. Only the app's own code counts: a test may reach across rooms to set a
// scene (a lib test rendering the component that shows its state, say).
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** One source file: its path relative to ui/src, with forward slashes, and its text. */
export interface SourceFile {
  path: string;
  text: string;
}

/** One broken rule, said so a failing run reads as the fix to make. */
export interface Violation {
  file: string;
  /** The file imported, or the backend call made. */
  imported: string;
  rule: string;
}

const sourceRoot = path.dirname(fileURLToPath(import.meta.url));

function sourceFiles(folder = sourceRoot): SourceFile[] {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    if (!/\.(ts|tsx|css)$/.test(name)) return [];
    return [{ path: path.relative(sourceRoot, full).split(path.sep).join("/"), text: readFileSync(full, "utf8") }];
  });
}

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/** The relative specifiers a file imports: static, side-effect, re-export, dynamic and CSS `@import`. */
export function importsOf(text: string): string[] {
  const found = new Set<string>();
  const patterns = [/\b(?:import|export)\s[^"';]*?\bfrom\s*["'](\.[^"']*)["']/g, /\bimport\s*["'](\.[^"']*)["']/g, /\bimport\(\s*["'](\.[^"']*)["']\s*\)/g, /@import\s+["'](\.[^"']*)["']/g];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) if (match[1] !== undefined) found.add(match[1]);
  return [...found];
}

/** Resolves `specifier` as imported from `from` to a file of `known` (extensions as Vite and TypeScript try them). */
function resolve(from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((candidate) => known.has(candidate));
}

/** The room a file lives in: its folder, or for `dir/name.ts` beside a folder `dir/name/`, that folder. */
export function roomOf(file: string, folders: ReadonlySet<string>): string {
  const folder = path.posix.dirname(file);
  const module = file.replace(/\.(ts|tsx)$/, "");
  return folders.has(module) ? module : folder;
}

/** Every rule broken by `files`; empty when the rooms hold. */
export function violations(files: readonly SourceFile[]): Violation[] {
  const known = new Set(files.map((file) => file.path));
  const folders = new Set(files.map((file) => path.posix.dirname(file.path)));
  const found: Violation[] = [];
  // room → rooms it imports, each with one import that shows it
  const edges = new Map<string, Map<string, { file: string; imported: string }>>();
  for (const file of files) {
    if (isTest(file.path)) continue;
    if (!file.path.startsWith("lib/")) {
      for (const call of file.text.matchAll(/\bbackend(?:\(\))?\??\.(\w+)\s*(?:\?\.)?\(/g)) {
        found.push({ file: file.path, imported: `backend.${call[1] ?? ""}()`, rule: "components and App call no backend method: the stores in lib/ (chat.ts, the settings stores) are its only callers" });
      }
    }
    for (const specifier of importsOf(file.text)) {
      const target = resolve(file.path, specifier, known);
      if (target === undefined) continue;
      if (file.path.startsWith("lib/") && !target.startsWith("lib/")) {
        found.push({ file: file.path, imported: target, rule: "lib/ is the UI's logic and never imports components/, App or main (they use lib/, not the other way round)" });
      }
      if (target.startsWith("lib/transport/") && !file.path.startsWith("lib/")) {
        found.push({ file: file.path, imported: target, rule: "only lib/ reaches a backend: components and App call the stores (chat.ts, the settings stores), which call the transport" });
      }
      const from = roomOf(file.path, folders);
      const to = roomOf(target, folders);
      if (from === to) continue;
      const out = edges.get(from) ?? new Map<string, { file: string; imported: string }>();
      if (!out.has(to)) out.set(to, { file: file.path, imported: target });
      edges.set(from, out);
    }
  }
  // A cycle between rooms: for each edge a → b, is a reachable again from b?
  const reaches = (start: string, goal: string): boolean => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const room = stack.pop() as string;
      if (room === goal) return true;
      if (seen.has(room)) continue;
      seen.add(room);
      stack.push(...(edges.get(room)?.keys() ?? []));
    }
    return false;
  };
  for (const [from, out] of edges) {
    for (const [to, example] of out) {
      if (reaches(to, from)) found.push({ file: example.file, imported: example.imported, rule: `no import cycle between folders: ${from === "." ? "src" : from}/ imports ${to}/, which leads back to ${from === "." ? "src" : from}/` });
    }
  }
  return found;
}

/** "file → what it imports or calls: the rule" */
const said = (list: readonly Violation[]) => list.map((violation) => `${violation.file} → ${violation.imported}: ${violation.rule}`);

describe("the UI's rooms", () => {
  it("hold in ui/src: lib/ imports no component, only lib/ calls or reaches a backend, no folder cycle", () => {
    expect(said(violations(sourceFiles()))).toEqual([]);
  });

  it("every part of the stylesheet is imported by styles.css, once", () => {
    const files = sourceFiles();
    const parts = files.filter((file) => file.path.endsWith(".css") && file.path !== "styles.css").map((file) => file.path).sort();
    const imported = importsOf(files.find((file) => file.path === "styles.css")?.text ?? "").map((specifier) => path.posix.normalize(specifier));
    expect(imported.slice().sort()).toEqual(parts);
  });
});

describe("the room check", () => {
  const scene = (extra: SourceFile[]): SourceFile[] => [
    { path: "lib/chat.ts", text: 'import { type Backend } from "./transport";' },
    { path: "lib/transport.ts", text: 'export type Backend = object;\nconst load = () => import("./transport/http-backend");' },
    { path: "lib/transport/http-backend.ts", text: 'import type { Backend } from "../transport";' },
    { path: "components/Sidebar.tsx", text: 'import { createChat } from "../lib/chat";' },
    ...extra,
  ];

  it("passes a tree that keeps the rules", () => {
    expect(violations(scene([]))).toEqual([]);
  });

  it("names the file and the rule for a lib/ module importing a component", () => {
    const found = said(violations(scene([{ path: "lib/toasts.ts", text: 'import { Sidebar } from "../components/Sidebar";' }])));
    expect(found).toContain("lib/toasts.ts → components/Sidebar.tsx: lib/ is the UI's logic and never imports components/, App or main (they use lib/, not the other way round)");
  });

  it("names a component that reaches a backend past the stores", () => {
    const found = said(violations(scene([{ path: "components/Settings.tsx", text: 'import { httpBackend } from "../lib/transport/http-backend";' }])));
    expect(found.some((line) => line.startsWith("components/Settings.tsx → lib/transport/http-backend.ts: only lib/ reaches a backend"))).toBe(true);
  });

  it("names a component that calls a backend method itself", () => {
    const found = said(violations(scene([{ path: "components/ServerProviders.tsx", text: "const [catalog] = createResource(() => props.backend.listModels());" }])));
    expect(found).toEqual(["components/ServerProviders.tsx → backend.listModels(): components and App call no backend method: the stores in lib/ (chat.ts, the settings stores) are its only callers"]);
  });

  it("finds a cycle between folders, and says which import closes it", () => {
    const found = said(violations(scene([{ path: "lib/transport/http-backend.ts", text: 'import type { Backend } from "../transport";\nimport { createChat } from "../chat";' }])));
    expect(found).toContain("lib/transport/http-backend.ts → lib/chat.ts: no import cycle between folders: lib/transport/ imports lib/, which leads back to lib/transport/");
  });

  it("leaves tests free to set a scene across rooms", () => {
    expect(violations(scene([{ path: "lib/updates.test.ts", text: 'import { Settings } from "../components/Settings";' }]))).toEqual([]);
  });
});
