import { describe, expect, it } from "vitest";
import { fill, humanSize, type Locale, messages, pickLocale, translator } from "./i18n";

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

  it("ship English and Simplified Chinese", () => {
    expect(locales.sort()).toEqual(["en", "zh-CN"]);
  });

  it("have exactly the same keys in every locale", () => {
    const englishKeys = Object.keys(messages.en).sort();
    for (const locale of locales) {
      expect(Object.keys(messages[locale]).sort(), locale).toEqual(englishKeys);
    }
  });

  it("have no empty strings", () => {
    for (const locale of locales) {
      for (const [key, text] of Object.entries(messages[locale])) {
        expect(text.trim(), `${locale}.${key}`).not.toBe("");
      }
    }
  });

  it("are actually translated, apart from the product name and size units", () => {
    const sameInEveryLanguage = ["appName", "kilobytes", "megabytes"];
    for (const key of Object.keys(messages.en) as (keyof typeof messages.en)[]) {
      if (sameInEveryLanguage.includes(key)) continue;
      expect(messages["zh-CN"][key], key).not.toBe(messages.en[key]);
    }
  });
});

describe("translator", () => {
  it("looks strings up in the chosen locale", () => {
    expect(translator("en")("sendButton")).toBe("Send");
    expect(translator("zh-CN")("sendButton")).toBe("发送");
    expect(translator("zh-CN")("sessionsTitle")).toBe("会话");
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
    expect(humanSize(translator("zh-CN"), 5)).toBe("5 字节");
  });
});
