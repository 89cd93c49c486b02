"""reldocs core: answer upgrade questions from release docs, with citations. No UI code lives here."""
