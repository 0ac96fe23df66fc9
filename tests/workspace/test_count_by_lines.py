"""The line-by-line count of dashboard headers (:func:`count_by_lines`) against
counting the whole text with cl100k_base (the plain reference), on adversarial text:
blank lines, lines starting with spaces, tabs or carriage returns, digits, punctuation,
non-ASCII letters, digit runs beside spaces and other numeric characters, and real
rendered dashboards."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sim.token_cache import KnownCountTokenizer
from sim.workspace.bounded_ledger import BoundedLedgerDashboard
from sim.workspace.dashboard import BudgetFacts, LedgerDashboard, Row, StatusBoardDashboard
from sim.workspace.tokenizer import count_by_lines, get_tokenizer

TOK = get_tokenizer("cl100k_base")
_piece = st.sampled_from(["\n", "\n\n", " ", "  ", "\t", "\r\n", "\r", "x", "Budget",
                          "~12,345", "123", "(", ")", "|", "#", "-", "é", "中文", "'s",
                          " ~", "%", "<context_workspace_status>", "</", "\u00a0",
                          # digit runs and what may touch them (issue 35: a line is
                          # also cut at its digit runs)
                          "0", "7", "1234567", "12,345,678", "²", "٣", "½", "  9",
                          "\t4", "r", "'s1", "~1", "1 ", "1\n", "x1y"])
_text = st.lists(st.one_of(_piece, st.text(max_size=6)), max_size=40).map("".join)


@settings(max_examples=1500, deadline=None)
@given(text=_text)
def test_count_by_lines_equals_the_whole_count(text):
    """Any text: the sum over the cut pieces equals the whole count (a cut only where
    a newline is followed by a non-space), through a memoising tokenizer too."""
    assert count_by_lines(TOK, text) == TOK.count(text)
    assert count_by_lines(KnownCountTokenizer(TOK), text) == TOK.count(text)


def test_other_tokenizers_count_the_text_whole():
    ws = get_tokenizer("whitespace")
    assert count_by_lines(ws, "a b\nc\n d") == ws.count("a b\nc\n d") == 4


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 30), turn=st.integers(0, 400),
       budget=st.one_of(st.none(), st.integers(1, 10**7)),
       overhead=st.integers(0, 10**6), conversation=st.integers(0, 10**7))
def test_every_dashboard_states_the_count_of_its_whole_text(n, turn, budget, overhead,
                                                            conversation):
    """Rendered ledger, bounded ledger and status board: the stated total (headers
    counted by lines) equals counting the whole message plus its framing."""
    rows = [Row(f"B{i}", 37 * i * i + 5, max(0, turn - i), "tool_result", i % 3, "-",
                ("visible", "archived", "pinned")[i % 3]) for i in range(1, n + 1)]
    facts = BudgetFacts(budget, overhead, conversation, turn)
    for dash in (LedgerDashboard(), BoundedLedgerDashboard(400), StatusBoardDashboard()):
        out = dash.render(rows, facts, TOK)
        assert out.tokens == TOK.count(out.text) + 3
        assert out == dash.render(rows, facts, TOK, fresh=True)


_ascii_piece = st.sampled_from(["\n", " ", "  ", "\t", "\r\n", "x", "~12,345", "123",
                                "(", "|", "#", "-", "'s", "0", "7", "1234567", "  9",
                                "\t4", "r", "~1", "1 ", "1\n", "x1y", "%"])
_ascii_text = st.lists(st.one_of(_ascii_piece, st.text(
    st.characters(max_codepoint=127), max_size=6)), max_size=40).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=_ascii_text)
def test_ascii_split_cuts_where_the_digit_cuts_do(text):
    """ASCII text (the split in C, :func:`_count_ascii_split`): the same pieces as the
    match-by-match cuts (:func:`_digit_cuts`), and the same count as the whole."""
    from sim.workspace.tokenizer import _count_ascii_split, _digit_cuts

    pieces: list[str] = []
    _count_ascii_split(lambda p: pieces.append(p) or 0, text)
    cuts = [c for c in _digit_cuts(text) if 0 < c < len(text)]
    bounds = [0] + sorted(set(cuts)) + [len(text)]
    want = [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
    assert pieces == want
    assert _count_ascii_split(TOK.count, text) == TOK.count(text)
