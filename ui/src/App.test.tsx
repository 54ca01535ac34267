import { cleanup, render, screen } from "@solidjs/testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { App } from "./App";

afterEach(cleanup);

describe("App", () => {
  it("shows the Sessions sidebar with an honest empty state", () => {
    render(() => <App locale="en" transport="http" />);
    expect(screen.getByRole("heading", { name: "Sessions" })).toBeTruthy();
    expect(screen.getByText("No sessions yet")).toBeTruthy();
    expect(screen.getByRole("complementary", { name: "Sessions" })).toBeTruthy();
  });

  it("disables Send and says why, next to the button and on the field", () => {
    render(() => <App locale="en" transport="http" />);
    const send = screen.getByRole<HTMLButtonElement>("button", { name: "Send" });
    expect(send.disabled).toBe(true);

    const notice = screen.getByText(
      "Sending is turned off: the chat is not connected in this build yet.",
    );
    expect(send.getAttribute("aria-describedby")).toBe(notice.id);

    const field = screen.getByRole<HTMLTextAreaElement>("textbox", { name: "Message" });
    expect(field.disabled).toBe(false);
    expect(field.getAttribute("aria-describedby")).toBe(notice.id);
  });

  it("has no dead buttons: every disabled button points at an explanation", () => {
    render(() => <App locale="en" transport="tauri" />);
    for (const button of screen.getAllByRole<HTMLButtonElement>("button")) {
      if (!button.disabled) continue;
      const explanationId = button.getAttribute("aria-describedby") ?? "";
      const explanation = document.getElementById(explanationId);
      expect(explanation?.textContent.trim(), button.textContent).toBeTruthy();
    }
  });

  it("names the transport it runs on", () => {
    const { unmount } = render(() => <App locale="en" transport="tauri" />);
    expect(screen.getByTestId("connection-status").textContent).toContain("Desktop app");
    unmount();
    render(() => <App locale="en" transport="http" />);
    expect(screen.getByTestId("connection-status").textContent).toContain("Browser");
  });

  it("renders in Simplified Chinese", () => {
    render(() => <App locale="zh-CN" transport="http" />);
    expect(screen.getByRole("heading", { name: "会话" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "发送" })).toBeTruthy();
    expect(screen.getByText("发送已停用：此版本尚未连接聊天。")).toBeTruthy();
  });
});
