import { describe, expect, it } from "vitest";
import { APPLE_KEYS, fill, flatTable, humanSize, type Locale, type MessageKey, messages, pickLocale, shortcutKeys, translator } from "./i18n";

describe("pickLocale", () => {
  it.each(["zh-CN", "zh", "zh-Hans-CN", "zh_CN", "ZH-cn", "zh-SG", "zh-TW"])(
    "picks Simplified Chinese for %s",
    (tag) => {
      expect(pickLocale(tag)).toBe("zh-CN");
    },
  );

  it.each(["en-US", "en", "fr-FR", "ja", "zu", "", "  ", undefined])(
    "falls back to English for %s",
    (tag) => {
      expect(pickLocale(tag)).toBe("en");
    },
  );
});

describe("string tables", () => {
  const locales = Object.keys(messages) as Locale[];
  const flat = { en: flatTable(messages.en), "zh-CN": flatTable(messages["zh-CN"]) };

  it("ship English and Simplified Chinese", () => {
    expect(locales.sort()).toEqual(["en", "zh-CN"]);
  });

  it("have exactly the same keys in every locale", () => {
    const englishKeys = Object.keys(flat.en).sort();
    for (const locale of locales) {
      expect(Object.keys(flat[locale]).sort(), locale).toEqual(englishKeys);
    }
  });

  it("have no empty strings", () => {
    for (const locale of locales) {
      for (const [key, text] of Object.entries(flat[locale])) {
        expect(text.trim(), `${locale}.${key}`).not.toBe("");
      }
    }
  });

  it("are actually translated, apart from the product name, size units and a bare shortcut", () => {
    // A language is offered by its own name (English, 简体中文) whatever the page's language.
    const sameInEveryLanguage: MessageKey[] = ["common.appName", "common.kilobytes", "common.megabytes", "common.gigabytes", "palette.searchAllShortcut", "settings.languageEnglish", "settings.languageChinese"];
    for (const key of Object.keys(flat.en) as MessageKey[]) {
      if (sameInEveryLanguage.includes(key)) continue;
      expect(flat["zh-CN"][key], key).not.toBe(flat.en[key]);
    }
  });
});

describe("translator", () => {
  it("looks strings up in the chosen locale", () => {
    expect(translator("en")("composer.sendButton")).toBe("Send");
    expect(translator("zh-CN")("composer.sendButton")).toBe("发送");
    expect(translator("zh-CN")("sessions.title")).toBe("会话");
  });

  it("spells shortcuts the way the platform does", () => {
    const mac = shortcutKeys("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15");
    const linux = shortcutKeys("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15");
    const windows = shortcutKeys("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36");
    expect(translator("en", mac)("toolbar.redoHint")).toBe("Bring back what Undo took away (⌘⇧Z)");
    expect(translator("en", linux)("toolbar.redoHint")).toBe("Bring back what Undo took away (Ctrl+Shift+Z)");
    expect(translator("zh-CN", windows)("palette.searchAllShortcut")).toBe("Ctrl+K");
    expect(translator("zh-CN", mac)("settings.open")).toBe("设置（⌘,）");
    expect(translator("en")("sessions.emptyBody")).toBe("Start one with New session, or press Ctrl+N.");
  });

  it("leaves no shortcut unspelled in any table", () => {
    for (const locale of ["en", "zh-CN"] as const) {
      for (const key of Object.keys(flatTable(messages[locale])) as MessageKey[]) {
        const shown = translator(locale, APPLE_KEYS)(key);
        expect(shown, key).not.toMatch(/Ctrl|\{mod\}|\{shift\}/);
      }
    }
  });
});

describe("fill", () => {
  it("replaces named placeholders and leaves unknown ones", () => {
    expect(fill("Read {name} · {count}", { name: "a.txt", count: 3 })).toBe("Read a.txt · 3");
    expect(fill("{missing}")).toBe("{missing}");
  });

  it("formats sizes in the reader's language", () => {
    expect(humanSize(translator("en"), 42)).toBe("42 bytes");
    expect(humanSize(translator("en"), 2048)).toBe("2.0 KB");
    expect(humanSize(translator("zh-CN"), 3 * 1024 * 1024)).toBe("3.0 MB");
    expect(humanSize(translator("en"), 2.5 * 1024 * 1024 * 1024)).toBe("2.5 GB");
    expect(humanSize(translator("zh-CN"), 5)).toBe("5 字节");
  });
});
