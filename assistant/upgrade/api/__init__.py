"""What changed in a product's public API, from the releases' own code: each release's `.py`/`.pyi` files are
loaded by static analysis (griffe; nothing from an archive runs), the public API is what a user can reach (the
package's exports, its non-underscore modules and members, members through a public class's MRO), and each
consecutive pair of releases is compared into `CodeChange`s of the kinds `assistant.model.api.CodeKind` names,
each attributed to the first release that shows it. Diffs are cached per pair of archives.

The entry point is `diff_releases`; `load_release` and `public_api` are the steps it is made of.
"""

from assistant.upgrade.api.diff import ANALYSER_VERSION, NotCached, diff_releases
from assistant.upgrade.api.load import LoadedRelease, UnsafeTree, load_release
from assistant.upgrade.api.public import PublicApi, public_api

__all__ = [
    "ANALYSER_VERSION",
    "LoadedRelease",
    "NotCached",
    "PublicApi",
    "UnsafeTree",
    "diff_releases",
    "load_release",
    "public_api",
]
