import { cleanup, render, screen } from "@solidjs/testing-library";
import { createSignal } from "solid-js";
import { afterEach, describe, expect, it } from "vitest";

import { language, LanguageContext, useLanguage } from "./language";

function Send() {
  const { t, locale } = useLanguage();
  return <button type="button" lang={locale()}>{t("composer.sendButton")}</button>;
}

describe("the language context", () => {
  afterEach(cleanup);

  it("gives English where no provider is", () => {
    render(() => <Send />);
    expect(screen.getByRole("button").textContent).toBe("Send");
    expect(screen.getByRole("button").getAttribute("lang")).toBe("en");
  });

  it("gives the provider's locale, and follows it when it changes", () => {
    const [locale, setLocale] = createSignal<"en" | "zh-CN">("zh-CN");
    // eslint-disable-next-line solid/reactivity -- the language reads the signal on every lookup, which is what this test checks
    const spoken = language(locale);
    render(() => (
      <LanguageContext.Provider value={spoken}>
        <Send />
      </LanguageContext.Provider>
    ));
    expect(screen.getByRole("button").textContent).toBe("发送");
    setLocale("en");
    expect(screen.getByRole("button").textContent).toBe("Send");
    expect(screen.getByRole("button").getAttribute("lang")).toBe("en");
  });
});
