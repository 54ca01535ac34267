import { describe, expect, it } from "vitest";
import type { Part } from "./bindings/Part";
import { groupUserParts, measureReadOutput } from "./context-summary";

const base = { sessionID: "ses_1", messageID: "msg_1" };
const text = (id: string, value: string, synthetic = false): Part => ({ ...base, id, type: "text", text: value, ...(synthetic ? { synthetic } : {}) });

const fileRead = "<path>/home/ada/package.json</path>\n<type>file</type>\n<content>\n1: {\n2:   \"name\": \"x\"\n3: }\n\n(End of file - total 3 lines)\n</content>";
const folderRead = "<path>/home/ada/src</path>\n<type>directory</type>\n<entries>\nlib/\nmain.rs\nREADME.md\n(3 entries)\n</entries>";

describe("groupUserParts", () => {
  it("folds a Read call and its output into one context line", () => {
    const parts: Part[] = [
      text("prt_1", "what is this?"),
      text("prt_2", 'Called the Read tool with the following input: {"filePath":"/home/ada/package.json"}', true),
      text("prt_3", fileRead, true),
      { ...base, id: "prt_4", type: "file", mime: "text/plain", filename: "package.json", url: "file:///home/ada/package.json" },
    ];
    const items = groupUserParts(parts);
    expect(items.map((item) => item.kind)).toEqual(["text", "context", "file"]);
    expect(items[1]).toMatchObject({ kind: "context", name: "package.json", lines: 3, text: fileRead });
  });

  it("counts a folder listing's entries", () => {
    const parts: Part[] = [
      text("prt_2", 'Called the Read tool with the following input: {"filePath":"/home/ada/src"}', true),
      text("prt_3", folderRead, true),
    ];
    expect(groupUserParts(parts)[0]).toMatchObject({ kind: "context", name: "src", entries: 3 });
  });

  it("names the file of a Read call whose result is an attachment", () => {
    const call = 'Called the Read tool with the following input: {"filePath":"/home/ada/photo.png"}';
    const parts: Part[] = [
      text("prt_1", call, true),
      { ...base, id: "prt_2", type: "file", mime: "image/png", filename: "photo.png", url: "dossier-blob:sha256-" + "a".repeat(64) },
    ];
    expect(groupUserParts(parts)[0]).toEqual({ kind: "context", id: "prt_1", name: "photo.png", text: call });
  });

  it("shows a failed read honestly with the file's name", () => {
    const failure = "Read tool failed to read /tmp/gone.txt with the following error: File not found: /tmp/gone.txt";
    expect(groupUserParts([text("prt_1", failure, true)])).toEqual([{ kind: "failure", id: "prt_1", name: "gone.txt", text: failure }]);
  });

  it("shows a failed read after its recorded call as the failure alone", () => {
    const call = 'Called the Read tool with the following input: {"filePath":"/tmp/gone.txt"}';
    const failure = "Read tool failed to read /tmp/gone.txt with the following error: File not found: /tmp/gone.txt";
    expect(groupUserParts([text("prt_1", call, true), text("prt_2", failure, true)])).toEqual([
      { kind: "failure", id: "prt_2", name: "gone.txt", text: failure },
    ]);
  });

  it("keeps agent mentions and drops ignored text", () => {
    const parts: Part[] = [
      { ...base, id: "prt_1", type: "agent", name: "explore" },
      { ...base, id: "prt_2", type: "text", text: "hidden", ignored: true },
    ];
    expect(groupUserParts(parts).map((item) => item.kind)).toEqual(["agent"]);
  });
});

describe("measureReadOutput", () => {
  it("reads the Read tool's own total for a three-line file", () => {
    const output = "<path>/tmp/notes.txt</path>\n<type>file</type>\n<content>\n1: alpha\n2: beta\n3: gamma\n\n(End of file - total 3 lines)\n</content>";
    expect(measureReadOutput(output)).toEqual({ lines: 3 });
  });

  it("counts raw text the way the Read tool does, whatever the last line ends with", () => {
    // A pasted or browser-attached text file arrives as its raw content, not as Read output.
    expect(measureReadOutput("alpha\nbeta\ngamma\n")).toEqual({ lines: 3 });
    expect(measureReadOutput("alpha\nbeta\ngamma")).toEqual({ lines: 3 });
    expect(measureReadOutput("one line")).toEqual({ lines: 1 });
    expect(measureReadOutput("\n\n")).toEqual({ lines: 2 });
    expect(measureReadOutput("")).toEqual({ lines: 0 });
  });


  it("falls back to counting numbered lines", () => {
    expect(measureReadOutput("<content>\n1: a\n2: b\n</content>")).toEqual({ lines: 2 });
  });
});
