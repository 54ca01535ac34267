import { describe, expect, it } from "vitest";
import { appearanceKey, type AppearanceSystem, createAppearance, localeFor, readChoice, themeFor } from "./appearance";

function memoryStorage(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  return { getItem: (key: string) => items.get(key) ?? null, setItem: (key: string, value: string) => void items.set(key, value), items };
}

/** A `(prefers-color-scheme: dark)` query whose answer the test changes. */
function darkQuery(matches: boolean) {
  const listeners: ((event: MediaQueryListEvent) => void)[] = [];
  return {
    matches,
    addEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => void listeners.push(listener),
    change(next: boolean) {
      this.matches = next;
      for (const listener of listeners) listener({ matches: next } as MediaQueryListEvent);
    },
  };
}

describe("readChoice", () => {
  it("follows the system when nothing is stored, or something unreadable is", () => {
    for (const stored of [undefined, "not json", "null", "42", '"dark"', '{"theme":"purple","language":"fr"}']) {
      const storage = memoryStorage(stored === undefined ? {} : { [appearanceKey]: stored });
      expect(readChoice(storage), String(stored)).toEqual({ theme: "system", language: "system" });
    }
  });

  it("reads a stored choice, each half on its own", () => {
    expect(readChoice(memoryStorage({ [appearanceKey]: '{"theme":"dark","language":"zh-CN"}' }))).toEqual({ theme: "dark", language: "zh-CN" });
    expect(readChoice(memoryStorage({ [appearanceKey]: '{"theme":"light"}' }))).toEqual({ theme: "light", language: "system" });
  });
});

describe("localeFor", () => {
  it.each([
    [["zh-CN", "en-US"], "zh-CN"],
    [["en-GB", "zh-CN"], "en"],
    [["fr-FR", "zh-TW", "en"], "zh-CN"],
    [["fr-FR", "de"], "en"],
    [[], "en"],
  ] as const)("takes the first language Dossier has from %j", (languages, locale) => {
    expect(localeFor("system", languages)).toBe(locale);
  });

  it("keeps a chosen language whatever the system prefers", () => {
    expect(localeFor("en", ["zh-CN"])).toBe("en");
    expect(localeFor("zh-CN", ["en-US"])).toBe("zh-CN");
  });
});

describe("themeFor", () => {
  it("follows the system's scheme unless one is chosen", () => {
    expect(themeFor("system", true)).toBe("dark");
    expect(themeFor("system", false)).toBe("light");
    expect(themeFor("light", true)).toBe("light");
    expect(themeFor("dark", false)).toBe("dark");
  });
});

describe("createAppearance", () => {
  const system = (storage = memoryStorage(), query = darkQuery(false), languages = ["zh-CN"]): AppearanceSystem & { query: ReturnType<typeof darkQuery> } => ({
    storage,
    languages: () => languages,
    darkQuery: query,
    query,
  });

  it("follows the system's scheme as it changes while the choice is the system's", () => {
    const surroundings = system();
    const appearance = createAppearance(surroundings);
    expect(appearance.theme()).toBe("light");
    surroundings.query.change(true);
    expect(appearance.theme()).toBe("dark");
    appearance.choose({ theme: "light" });
    expect(appearance.theme()).toBe("light");
    surroundings.query.change(false);
    surroundings.query.change(true);
    expect(appearance.theme()).toBe("light");
  });

  it("remembers a choice for the next start of the same install", () => {
    const storage = memoryStorage();
    const first = createAppearance(system(storage));
    expect(first.locale()).toBe("zh-CN");
    first.choose({ language: "en" });
    first.choose({ theme: "dark" });
    expect(first.locale()).toBe("en");
    const next = createAppearance(system(storage));
    expect(next.choice()).toEqual({ theme: "dark", language: "en" });
    expect(next.theme()).toBe("dark");
    expect(next.locale()).toBe("en");
    // Another install (its own storage) still follows its system.
    expect(createAppearance(system()).choice()).toEqual({ theme: "system", language: "system" });
  });
});
