// Links in replies. Only http and https links are ever opened, and never inside the app's view:
// the desktop hands them to the system browser (the shell's `open_link` command, which refuses
// every other scheme too: src-tauri/src/link_opening.rs), a browser opens a new tab without a way
// back to this page. A `file:`, `javascript:` or any other link stays words.

/** The URL to open for a link's `href`, or `undefined` when it must not be opened. */
export function externalUrl(href: string | null | undefined): string | undefined {
  if (href === null || href === undefined) return undefined;
  let url: URL;
  try {
    // No base: a relative link would point into the app itself.
    url = new URL(href.trim());
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
}

/**
 * For a click anywhere in the conversation: the link it landed on in a reply, if any (the click
 * is then the page's to handle, never the webview's), with the URL to open when it may be opened.
 */
export function clickedLink(target: EventTarget | null): { url: string | undefined } | undefined {
  if (!(target instanceof Element)) return undefined;
  const anchor = target.closest(".markdown a");
  if (anchor === null) return undefined;
  return { url: externalUrl(anchor.getAttribute("href")) };
}
