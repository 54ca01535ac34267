import { describe, expect, it } from "vitest";
import { agentDescription, agentName, modelName, providerName } from "./display-names";
import { translator } from "./i18n";

const english = translator("en");
const chinese = translator("zh-CN");
const builtIn = (name: string, description?: string) => ({ name, native: true, ...(description === undefined ? {} : { description }) });

describe("agent names", () => {
  it.each([
    ["build", "Do the work", "直接动手"],
    ["plan", "Plan only (no changes)", "只做计划（不改动）"],
    ["general", "General helper", "通用助手"],
    ["explore", "Explore the files", "浏览文件"],
  ])("the built-in %s is called %s / %s", (id, inEnglish, inChinese) => {
    expect(agentName(english, builtIn(id))).toBe(inEnglish);
    expect(agentName(chinese, builtIn(id))).toBe(inChinese);
  });

  it("describes a built-in agent in the reader's language, not the server's English", () => {
    const plan = builtIn("plan", "Plan mode. Disallows all edit tools.");
    expect(agentDescription(english, plan)).toBe("Reads and thinks it through, but changes no files.");
    expect(agentDescription(chinese, plan)).toBe("阅读并想清楚，但不修改任何文件。");
  });

  it("a configured agent keeps the name and words it was given", () => {
    const reviewer = { name: "reviewer", native: false, description: "Reviews my drafts" };
    expect(agentName(chinese, reviewer)).toBe("reviewer");
    expect(agentDescription(chinese, reviewer)).toBe("Reviews my drafts");
    // One that only borrows a built-in's id is not Dossier's own.
    expect(agentName(english, { name: "build", native: false })).toBe("build");
    // Nor is a name that merely looks like an object's own property.
    expect(agentName(english, { name: "toString", native: true })).toBe("toString");
  });
});

describe("provider names", () => {
  it("names the models on this computer in the reader's language, other providers as listed", () => {
    expect(providerName(chinese, { id: "local", name: "On this computer" })).toBe("本机");
    expect(providerName(english, { id: "local", name: "On this computer" })).toBe("On this computer");
    expect(providerName(chinese, { id: "acme", name: "Acme" })).toBe("Acme");
  });
});

describe("model names", () => {
  it("names the built-in offline model in the reader's language, other models as listed", () => {
    const offline = { providerID: "dossier", id: "offline", name: "Offline model" };
    expect(modelName(chinese, offline)).toBe("离线替身（备用：未安装模型）");
    expect(modelName(english, offline)).toBe("Offline stand-in (fallback: no model installed)");
    expect(modelName(chinese, { providerID: "acme", id: "offline", name: "Acme Offline" })).toBe("Acme Offline");
  });
});
