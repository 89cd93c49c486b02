"""A corpus written by an attacker: every way a release-notes file has tried to act in a reader's page,
Slack or terminal, with questions that make each document quoted.

`write(root, beacon)` lays it out under `root`; `beacon` is a URL prefix on a local listener, so a test can
tell whether any part of the content made a browser fetch something.
"""

from __future__ import annotations

from pathlib import Path

PHISH = "https://evil.example/login"
FIXED = "position:fixed;top:0;left:0;width:100vw;height:100vh;z-index:99999;background:#fff"
SHOUT = "<!channel> <!here> <!everyone> @channel @here <@U024BE7LH> <#C024BE7LH>"
ANSI = "\x1b[2J\x1b[31mRED\x1b]0;pwned-title\x07\x1b]8;;https://evil.example/\x1b\\osc8\x1b]8;;\x1b\\\x07\x08\x9b31m"


def documents(beacon: str) -> dict[str, str]:
    """Relative path -> file text. Each body talks about one made-up API so a question reaches it."""
    img = f'<img src="{beacon}/%s.png">'
    return {
        "hostile/1.0/release-notes.md": f"""---
title: 'Hostile 1.0 \\`<img src="{beacon}/title.png">\\` notes'
url: 'https://example.com/a) <a href="{PHISH}" style="{FIXED}">Session expired - sign in again</a> ('
kind: '{img % "kind"}'
version: '{img % "version"}'
---
# Hostile 1.0 release notes

## Breaking changes {img % "heading"}

- The `frobnicate_widgets()` function now returns a list of widgets instead of a generator.
  <script>document.title='PWNED'; fetch('{beacon}/script')</script>
  <style>body {{ background: red !important; }}</style>
  See <a href="{PHISH}" style="{FIXED}">Session expired - sign in again</a> for frobnicate_widgets details.
- Calling `frobnicate_widgets()` with a generator argument raises `TypeError`; pass a &lt;tensor&gt; list.
  {img % "body"} <iframe src="{beacon}/iframe"></iframe>
""",
        "hostile/2.0/release-notes.md": f"""---
title: https://pytorch.org/docs
url: javascript:alert(document.cookie)
kind: release-notes
version: 2.0
---
# Quux scheduler changes

- The quux_scheduler option was removed; read [https://pytorch.org/docs](https://evil.example/steal) for the
  quux_scheduler replacement, or [click here](javascript:alert(1)) for quux_scheduler help. {SHOUT}
- The quux_scheduler timeout is now 30 seconds. {ANSI}
  <a href="javascript:alert(2)">quux_scheduler migration notes</a>
""",
        "hostile/3.0/release-notes.md": f"""---
title: Hostile 3.0 notes
url: https://docs.example.com/hostile/3.0
version: 3.0
---
# Zorblax release notes

## Zorblax \\`<img src="{beacon}/backtick-heading.png">\\` changes

- The zorblax_mode flag now defaults to strict. \\`<img src="{beacon}/backtick-body.png" onerror="alert(1)">\\`
  The old zorblax_mode behaviour is kept with `zorblax_mode="legacy"`; see
  ![zorblax diagram]({beacon}/markdown-image.png) and <{beacon}/autolink> for zorblax_mode details.
- zorblax_mode ``<img src="{beacon}/double-backtick.png">`` is documented in the zorblax_mode guide.
  <div style="{FIXED}">zorblax_mode overlay</div>
""",
    }


QUESTIONS = (
    "What changed in frobnicate_widgets?",
    "What replaces the quux_scheduler option?",
    "What is the new quux_scheduler timeout?",
    "What does the zorblax_mode flag default to now?",
)


def write(root: Path, beacon: str) -> list[str]:
    """Write the corpus under `root`; returns the questions that quote it."""
    for rel, text in documents(beacon).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(QUESTIONS)
