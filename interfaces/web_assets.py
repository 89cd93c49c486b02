"""What the chat page carries besides its components: its stylesheet and the one script it runs.

The script only makes the copy button copy a message's plain-text twin (see `web_render`) instead of the
HTML the message is shown as; it reads nothing from the docs but that base64 text.
"""

CSS = """
.reldocs-refusal { border-left: 4px solid #d97706; background: rgba(217, 119, 6, 0.08); padding: 2px 12px;
  border-radius: 6px; }
.reldocs-sources { border-top: 1px solid rgba(128, 128, 128, 0.35); margin-top: 8px; padding-top: 4px;
  font-size: 0.92em; }
.reldocs-source { margin: 6px 0; }
.reldocs-quote summary { cursor: pointer; color: #2563eb; }
.reldocs-ref { text-decoration: none; font-weight: 600; }
.reldocs-badge { font-size: 0.8em; font-weight: 600; text-transform: uppercase; letter-spacing: 0.04em;
  color: #b45309; }
/* Long unbroken tokens (URLs, symbol paths) wrap instead of widening the page. */
#reldocs-chat .message, .reldocs-answer, .reldocs-refusal, .reldocs-question { overflow-wrap: anywhere;
  word-break: break-word; }
#reldocs-chat code { white-space: pre-wrap; overflow-wrap: anywhere; }
@media (max-width: 640px) {
  #reldocs-controls { flex-direction: column; align-items: stretch; }
  #reldocs-controls > * { width: 100% !important; min-width: 0 !important; flex: 1 1 auto !important; }
}
"""

# Gradio's copy button writes the message's raw content; swap in the plain text the message carries. Both
# ways Gradio copies are covered: the Clipboard API, and execCommand("copy") from a textarea where that API
# is missing (pages served over plain http to other machines).
COPY_JS = r"""
() => {
  const MARK = /<!--reldocs-copy:([A-Za-z0-9+/=]*)-->/;
  const plain = (text) => {
    const m = MARK.exec(String(text));
    if (!m) return text;
    const bytes = Uint8Array.from(atob(m[1]), (c) => c.charCodeAt(0));
    return new TextDecoder().decode(bytes);
  };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    const write = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = (text) => write(plain(text));
  }
  document.addEventListener("copy", (event) => {
    const el = document.activeElement;
    if (el && el.tagName === "TEXTAREA" && MARK.test(el.value)) {
      event.clipboardData.setData("text/plain", plain(el.value));
      event.preventDefault();
    }
  });
}
"""
