"""Griffe extension for the API reference: doctests shown as code, rules citations as pages.

Two rewrites of every docstring the reference shows (the source keeps its own words):

- **Doctests**: doctest blocks outside an ``Examples:`` section are shown as Python
  console code (see below).
- **Grouped arguments** (``inp, out: the streams.`` under ``Args:``) become one entry per
  name with the same words (:func:`split_grouped_args`), as the Google style wants.
- **Sphinx roles** (``:class:`~setgames.game.Game```) are shown as the code they name
  (:func:`plain_roles`).
- **Rules citations**: the modules cite a rule by the file that states it
  (``tusac_env/README.md``, rules choice 20; ``docs/games/decktet.md``), and now and then
  the designers' rule texts (``tusac-rules.txt``), which are not part of the repository;
  the reference names the page of this site that shows that file, or states that rule,
  instead (:func:`cite_pages`).

The package's docstrings put doctests after the other sections (``Raises:`` then
``>>> ...``), which the Google style reads as free text: Markdown would take ``>>>``
for a quotation and ``x[0][:2]`` for a link. This wraps every such block (from a line
starting with ``>>>`` at the docstring's left margin to the next blank line) in a
``pycon`` fence; blocks under an ``Examples:`` heading are left to Griffe.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_SECTION = re.compile(r"^\w[\w ]*:\s*$")
# A game's README is shown as that game's page of the site (docs/games/<name>.md includes it).
_README = re.compile(r"(?:``)?(tethsi|bharg|tusac)_env/README\.md(?:``)?")
_DECKTET = re.compile(r"(?:``)?docs/games/decktet\.md(?:``)?")
_TEXT_FILE = re.compile(r"``(tethsi|bharg|tusac)-rules\.txt``")
_TEXT_PAGE = {"tethsi": "the Tet Hsi page", "bharg": "the Bharg page", "tusac": "the Tu Sac page"}


_GROUPED = re.compile(r"^(\s+)(\*{0,2}\w+(?:, \*{0,2}\w+)+): (.*)$")


def split_grouped_args(text: str) -> str:
    """``text`` with each ``a, b: words`` entry of an ``Args:`` section written once per name.

    >>> split_grouped_args("Args:\\n    host, port: where to listen.\\n    open: open it.").splitlines()
    ['Args:', '    host: where to listen.', '    port: where to listen.', '    open: open it.']
    """
    out: list[str] = []
    in_args = False
    for line in text.split("\n"):
        if _SECTION.match(line):
            in_args = line.strip().rstrip(":").lower() in ("args", "arguments", "parameters")
        elif line and not line[0].isspace():
            in_args = False
        m = _GROUPED.match(line) if in_args else None
        if m:
            out += [f"{m.group(1)}{name}: {m.group(3)}" for name in m.group(2).split(", ")]
        else:
            out.append(line)
    return "\n".join(out)


_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|data|mod|attr|exc|obj):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    """``text`` with each Sphinx role shown as the code it names (``~`` keeps the last part).

    >>> plain_roles("a :class:`~setgames.game.Game` or :func:`setgames.bots.make_bot`")
    'a ``Game`` or ``setgames.bots.make_bot``'
    """
    return _ROLE.sub(lambda m: f"``{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}``", text)


def cite_pages(text: str) -> str:
    r"""``text`` with each file it cites for a rule replaced by the page of the site showing it.

    >>> cite_pages('Rules applied (``tusac_env/README.md``, rules choice 20), checked')
    'Rules applied (the Tu Sac page, rules choice 20), checked'
    >>> cite_pages("Rules applied (``docs/games/decktet.md``; ``bharg_env/README.md``, rules choice 11):")
    'Rules applied (the Decktet page; the Bharg page, rules choice 11):'
    >>> cite_pages("as ``tethsi-rules.txt`` says")
    'as the Tet Hsi page says'
    """
    text = _README.sub(lambda m: _TEXT_PAGE[m.group(1)], text)
    text = _DECKTET.sub("the Decktet page", text)
    return _TEXT_FILE.sub(lambda m: _TEXT_PAGE[m.group(1)], text)


def fence_doctests(text: str) -> str:
    """``text`` with each free-standing doctest block fenced as ``pycon`` (see the module doc).

    >>> fence_doctests("Doc.\\n\\n>>> 1 + 1\\n2").splitlines()
    ['Doc.', '', '```pycon', '>>> 1 + 1', '2', '```']
    """
    out: list[str] = []
    lines = text.split("\n")
    section = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if _SECTION.match(line):
            section = line.strip().rstrip(":").lower()
        elif line and not line[0].isspace() and not line.startswith(">>>"):
            section = ""
        if line.startswith(">>>") and section not in ("examples", "example"):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += ["```pycon", *block, "```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class DocstringsForTheSite(griffe.Extension):
    """Fence the free-standing doctests and cite pages, in every docstring Griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring, if it has one."""
        if obj.docstring is not None:
            text = split_grouped_args(fence_doctests(obj.docstring.value))
            obj.docstring.value = plain_roles(cite_pages(text))
