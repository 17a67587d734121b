"""Text for a terminal: control and bidirectional-override characters escaped, as ``repr`` escapes them.

Ids, names and field names come from the input, and a terminal obeys what it prints: an
``ESC ]0;...`` sets the window title, ``ESC [2J`` clears the screen, ``ESC ]52;...`` writes
the clipboard, U+202E turns the rest of a line around.  Everything the command line prints
for a person (the solve rendering, the analysis table, ``proliferate: error:`` and
``warning:`` lines) goes through :func:`terminal_text` at the point it is written, so an id
is shown as ``'\\x1b]0;pwned\\x07'`` would be in ``repr``, and the line stays what we wrote.
JSON output is not passed through it: JSON escapes control characters itself and must stay
exact; HTML and SVG escape with :func:`html.escape`.
"""

from __future__ import annotations

__all__ = ["MAX_MESSAGE_CHARS", "cut_message", "terminal_text"]

#: Longest problem message ``analyze`` prints on stderr or keeps for its JSON and HTML outputs: a message can
#: quote a field name of any length, and a thousand messages of a megabyte each would make a gigabyte.
MAX_MESSAGE_CHARS = 1000


def terminal_text(text: str, *, lines: bool = True) -> str:
    """``text`` with every character ``repr`` would escape written as its escape; ``\\t`` kept.

    ``\\n`` is kept too when ``lines`` (text of several lines), escaped when not (one line of a table).

    >>> terminal_text("bob\\x1b]0;owned\\x07 \\u202egnp.exe")
    'bob\\\\x1b]0;owned\\\\x07 \\\\u202egnp.exe'
    >>> terminal_text("Ætherflux, 日本")
    'Ætherflux, 日本'
    """
    if text.isprintable():
        return text
    if not lines:
        return _escape_line(text)
    return "\n".join(line if line.isprintable() else _escape_line(line) for line in text.split("\n"))


def _escape_line(line: str) -> str:
    return "".join(ch if ch.isprintable() or ch == "\t" else repr(ch)[1:-1] for ch in line)


def cut_message(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` cut at ``limit`` characters, saying how many were left out.

    >>> cut_message("ab" * 3, limit=4)
    'abab... (2 more characters)'
    """
    if len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text) - limit} more characters)"
