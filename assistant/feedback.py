"""👍/👎 feedback on answers, appended as JSON lines in the data folder (shared by all interfaces)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

from assistant.models import Answer

Vote = Literal["up", "down"]
_lock = threading.Lock()


class FeedbackLog:
    """Append-only log; one line per vote with the question, answer and citations it judged."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def record(self, answer: Answer, vote: Vote, *, channel: str, user: str | None = None) -> dict[str, Any]:
        if vote not in ("up", "down"):
            raise ValueError(f"vote must be 'up' or 'down', not {vote!r}")
        entry = {
            "time": time.time(),
            "channel": channel,
            "user": user,
            "vote": vote,
            "question": answer.question,
            "answer": answer.text,
            "found": answer.found,
            "mode": answer.mode,
            "citations": [asdict(c) for c in answer.citations],
        }
        line = json.dumps(entry, ensure_ascii=False)
        with _lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
        return entry

    def entries(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
