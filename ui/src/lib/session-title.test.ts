import { describe, expect, it } from "vitest";
import { translator } from "./i18n";
import { displayTitle } from "./session-title";

describe("displayTitle", () => {
  it("keeps real titles as they are", () => {
    expect(displayTitle("Tax return 2025", translator("en"), "en")).toBe("Tax return 2025");
  });

  it("turns the placeholder into a readable, translated name", () => {
    const shown = displayTitle("New session - 2026-11-30T03:15:19.420Z", translator("en"), "en");
    expect(shown.startsWith("New session · ")).toBe(true);
    expect(shown).toContain("2026");
    expect(shown).not.toContain("T03:15:19");
    expect(displayTitle("Child session - 2026-11-30T03:15:19.420Z", translator("zh-CN"), "zh-CN").startsWith("子会话 · ")).toBe(true);
  });
});
