"""A migration guide's topics are its changes (`ingest/changes.py`): each section a guide's table of contents names
is one change of the plan, with the fix its "To address:" paragraph gives, even when its heading names only code
and its text announces nothing in release-note words; a section that groups changes its entries announce is no
change itself. A neutral product (acme) written here, through the real loader and chunker."""

from __future__ import annotations

from pathlib import Path

from assistant.index.catalog import Catalog
from assistant.upgrade.plan import make_plan
from assistant.upgrade.subjects import subjects
from ingest.chunking import chunk_document
from ingest.loader import load_document

GUIDE = """---
title: Migrate to v9.x
---

Acme v9.0.0 is a major release. This guide walks you through its breaking changes.

## Node.js < v18 is no longer supported

Acme dropped support for these versions of Node.js.

**To address:** Upgrade to Node.js v18 or later.

## New default config format (`acme.config.js`)

In Acme v9, `acme.config.js` is the configuration format looked for first.

**To address:** Move your settings to `acme.config.js`.

## Rules need `meta.schema` to accept options

A rule's options are validated against its `meta.schema`.

**To address:** Add `meta.schema` to every rule that takes options.

## Changes to `acme.Linter`

The `Linter` class has several changes, listed below.

* `Linter.verify_file()` has been removed; use `Linter.verify()` instead.

"""
# A long paragraph after the list: a chunk of its own in the same section, which announces nothing itself.
GUIDE += "\n" + "The class is described at length in the API reference, with examples of each method. " * 30 + "\n"


def plan_of(tmp_path: Path) -> list[tuple[str, str, str]]:
    path = tmp_path / "acme" / "migrate.md"
    path.parent.mkdir()
    path.write_text(GUIDE)
    chunks = chunk_document(load_document(path, tmp_path))
    assert {c.version for c in chunks} == {"9"}  # from the front matter's "Migrate to v9.x"
    plan = make_plan(chunks, Catalog.learn(chunks), "8", "9", "acme")
    return [(c.kind, c.summary, c.fix) for c in plan.changes]


def test_each_topic_of_a_guide_is_a_change_with_its_fix(tmp_path: Path) -> None:
    changes = plan_of(tmp_path)
    by_summary = {summary: (kind, fix) for kind, summary, fix in changes}
    assert by_summary["New default config format (acme.config.js)"] == (
        "breaking",
        "To address: Move your settings to `acme.config.js`.",
    )
    assert by_summary["Rules need meta.schema to accept options"] == (
        "breaking",
        "To address: Add `meta.schema` to every rule that takes options.",
    )
    assert by_summary["Node.js < v18 is no longer supported"] == (
        "removed",
        "To address: Upgrade to Node.js v18 or later.",
    )


def test_a_section_grouping_the_changes_its_entries_announce_is_no_change(tmp_path: Path) -> None:
    summaries = [summary for _, summary, _ in plan_of(tmp_path)]
    assert not any(s.startswith("Changes to") for s in summaries), summaries
    assert any("verify_file" in s for s in summaries)  # the item is the change
    assert len(summaries) == len(set(summaries)) == 4


def test_decorators_listed_together_are_all_the_subjects() -> None:
    names = ("acme.check", "acme.root_check", "acme.Field")
    assert subjects(names, "`@check` and `@root_check` are deprecated") == ["acme.check", "acme.root_check"]
    assert subjects(names, "check and @root_check are deprecated") == ["acme.check", "acme.root_check"]


SHOWN = """---
title: Migrate to v9.x
---

## Selecting from the query itself, e.g. "from_self()"

The `acme.Query.from_self` method will be removed from `acme.Query`:

```python
q = session.query(User).from_self(User)
```

## Removed helpers

The following helpers have been removed:

* `acme.old_helper()`
"""


def test_a_paragraph_that_states_a_change_and_shows_it_is_the_change_not_an_intro(tmp_path: Path) -> None:
    path = tmp_path / "acme" / "migrate.md"
    path.parent.mkdir()
    path.write_text(SHOWN)
    chunks = chunk_document(load_document(path, tmp_path))
    plan = make_plan(chunks, Catalog.learn(chunks), "8", "9", "acme")
    lines = {c.summary: c for c in plan.changes}
    stated = lines["The `acme.Query.from_self` method will be removed from `acme.Query`."]
    assert stated.kind == "deprecated" and stated.symbols[0] == "acme.Query.from_self"
    assert not any(s.startswith("Selecting from") for s in lines)  # the topic is its statement, not listed twice
    # A paragraph ending with ":" before a list still introduces it: each item is read with it.
    (helper,) = [c for c in plan.changes if "old_helper" in c.summary]
    assert helper.kind == "removed"


def test_a_subsection_of_a_telling_section_whose_heading_names_code_is_a_change() -> None:
    from assistant.model.document import Entry
    from tests.test_changes_plan import chunk

    notes = chunk(
        Entry("paragraph", "See the pull request for the discussion that led here."),
        section="Backwards Incompatible Changes › Finish deprecation of acme.Scheduler.print_lr() (#147301)",
        version="2.0.0",
    )
    assert [(c.kind, c.summary) for c in notes.changes] == [
        ("deprecated", "Finish deprecation of acme.Scheduler.print_lr() (#147301)")  # its wording says which
    ]
    plain = chunk(
        Entry("paragraph", "See the pull request for the discussion that led here."),
        section="Backwards Incompatible Changes › Python packaging",  # names no code: nothing to change in code
        version="2.0.0",
    )
    assert plain.changes == ()


def test_a_heading_stating_a_changed_default_is_the_change_its_prose_the_detail() -> None:
    from assistant.model.document import Entry
    from assistant.upgrade.targeting import targets
    from tests.test_changes_plan import chunk

    notes = chunk(
        Entry("paragraph", "This differs from the previous release default of `strict=True`."),
        Entry("paragraph", "Version 2.0.0"),
        # what to do to keep the old behaviour is the fix, not an old form, though it says "old"
        Entry(
            "code",
            "# strict=True must be explicitly passed to get the old behavior\nacme.export.export(m, strict=True)",
        ),
        section="Backwards Incompatible Changes › Switched default to strict=False in acme.export.export (#148790)",
        version="2.0.0",
    )
    (change,) = notes.changes
    assert (change.kind, change.symbols, change.parameter) == ("breaking", ("acme.export.export",), "strict")
    assert change.default_changed and not [f for f in change.forms if not f.startswith("~")]
    plan = make_plan([notes], Catalog.learn([notes]), "1.0", "2.0", "acme")
    (target,) = targets(plan)
    assert (target.symbol, target.parameter, target.omitted) == ("acme.export.export", "strict", True)
    # An item that names no code is a change of its own all the same ("Support for GDAL 2.2 is removed.").
    items = chunk(
        Entry("item", "Support for GDAL 2.2 is removed."),
        section="Backwards incompatible changes › acme.contrib.gis",
        version="2.0.0",
    )
    assert [c.summary for c in items.changes] == ["Support for GDAL 2.2 is removed."]


# A guide in another common shape, written for this test: its release only in the lead's quote, its changes under
# grouping sections ("Breaking Changes", "API Changes"), each topic in parts ("0.x Behavior", "1.x Behavior"), and
# sections that are no changes (overview, strategies, troubleshooting).
GROUPED = """# Acme Migration Guide

> **Migrating from Acme 0.x to 1.x**

## Table of Contents

- [Overview](#overview)
- [Breaking Changes](#breaking-changes)
- [API Changes](#api-changes)
- [Migration Strategies](#migration-strategies)
- [Troubleshooting](#troubleshooting)

## Overview

Acme 1.x makes errors consistent. Plan a day for a medium application.

## Breaking Changes

### 1. Error Handling Changes

#### 0.x Behavior

Some failed requests resolved quietly.

#### 1.x Behavior

Every failed request rejects its promise.

### 2. JSON Parsing Changes

#### 0.x Behavior

Invalid JSON came back as a string.

#### 1.x Behavior

Invalid JSON raises a parse error.

## API Changes

### Request Configuration

The request options are read once, when the request starts.

## Migration Strategies

### Phase 1: Preparation

Read your error handlers first.

## Troubleshooting

### Requests hang

Check the proxy settings.
"""


def test_a_guide_grouping_its_topics_under_changes_sections_lists_each_topic_once(tmp_path: Path) -> None:
    path = tmp_path / "acme" / "MIGRATION_GUIDE.md"
    path.parent.mkdir()
    path.write_text(GROUPED)
    chunks = chunk_document(load_document(path, tmp_path))
    assert {(c.version, c.release_from, c.kind) for c in chunks} == {("1", "lead", "migration-guide")}
    plan = make_plan(chunks, Catalog.learn(chunks), "0", "1", "acme")
    assert [c.summary for c in plan.changes] == [
        "1. Error Handling Changes",
        "2. JSON Parsing Changes",
        "Request Configuration",
    ]


UPGRADING = """## Upgrading to new acme versions

### Upgrading to version 2.0.0+

* Node.js older than 14 is no longer supported.

### Upgrading to version 1.0.0+

* `acme.connect()` no longer accepts a callback.
"""

V5 = """# V5 Migration Guide

This guide is intended to help with migration from Acme v4 to v5.

## Breaking Changes

### Removed `app.use()`

Use a plugin instead.

## Non-Breaking Changes

### Deprecation of variadic `.listen()` signature

The variadic signature of the `acme.listen()` method is now deprecated.

* `acme.listen(8000)`
* `acme.listen(8000, "127.0.0.1")`

### Add `reply.trailers` methods

Trailers can be sent with `reply.trailers`.
"""


def test_upgrading_guides_name_their_releases_in_their_titles_and_headings(tmp_path: Path) -> None:
    (tmp_path / "acme").mkdir()
    (tmp_path / "acme" / "UPGRADING.md").write_text(UPGRADING)
    (tmp_path / "acme" / "Migration-Guide-V5.md").write_text(V5)
    chunks = [c for p in sorted((tmp_path / "acme").iterdir()) for c in chunk_document(load_document(p, tmp_path))]
    assert {(c.source.rsplit("/", 1)[-1], c.version) for c in chunks} >= {
        ("UPGRADING.md", "2.0.0"),
        ("UPGRADING.md", "1.0.0"),
        ("Migration-Guide-V5.md", "5"),  # "V5 Migration Guide"
    }
    plan = make_plan(chunks, Catalog.learn(chunks), "4", "5", "acme")
    lines = [(c.kind, c.summary) for c in plan.changes]
    assert ("breaking", "Removed app.use()") in lines or ("removed", "Removed app.use()") in lines
    # A non-breaking section is not breaking; examples of a deprecated call are not changes of their own.
    assert [s for k, s in lines if "listen" in s] == [
        "The variadic signature of the `acme.listen()` method is now deprecated."
    ]
    assert not [s for k, s in lines if k == "breaking" and "trailers" in s]
    assert {c.version for c in make_plan(chunks, Catalog.learn(chunks), "0.9", "2.0", "acme").changes} == {
        "1.0.0",
        "2.0.0",
    }
