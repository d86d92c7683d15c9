"""The kit's reader of BIF networks (the Bayesian Interchange Format of the bnlearn repository).

A file is a sequence of blocks::

    network NAME { property ... ; }
    variable NAME { type discrete [ K ] { s_1, ..., s_K }; property ... ; }
    probability ( CHILD | P_1, ..., P_m ) {
        ( p_1, ..., p_m ) q_1, ..., q_K;     // one row per parent configuration, or
        table q_1, ..., q_{K * prod |P_i|};  // the whole table, child state slowest, or
        default q_1, ..., q_K;               // for the configurations no row names
    }

``//`` and ``/* */`` are comments; names may be quoted. Tables are laid out as pgmpy's
``BIFReader`` lays them out (``values[k, c]``: child state ``k``, parent configuration ``c`` with
the last parent fastest), and the model is built from the same pgmpy classes in the same node
order, so a network reads to the same model (a test checks every network pgmpy ships). Every
refusal is a :class:`~causaleval.datasets.readers.DataFileError` naming the file, the line and
column and what was expected; a misspelt keyword gets the nearest one as a hint. A probability is
a finite number (``nan`` and ``inf`` are refused where they are written), and the probability blocks
must make a DAG (a cycle is refused at the block that closes it). It reads a
100-node file in a fraction of a second (pgmpy's pyparsing reader takes seconds).
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from causaleval.datasets.readers import DataFileError

KEYWORDS = ("network", "variable", "probability")
_TOKEN = re.compile(r'"(?P<quoted>[^"]*)"|(?P<punct>[{}()\[\],;|])|(?P<word>[^\s{}()\[\],;|"]+)')
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
SUM_TOLERANCE = 1e-6  # a table column may miss 1 by rounding in the file, no more


@dataclass
class _Token:
    text: str
    line: int
    column: int
    kind: str


@dataclass
class _Network:
    name: str | None = None
    states: dict[str, list[str]] = field(default_factory=dict)
    parents: dict[str, list[str]] = field(default_factory=dict)
    tables: dict[str, np.ndarray] = field(default_factory=dict)
    declared_at: dict[str, tuple[int, int]] = field(default_factory=dict)
    block_at: dict[str, tuple[int, int]] = field(default_factory=dict)  # each probability block's start


class _Parser:
    def __init__(self, path: Path, text: str):
        self.path = path
        self.tokens = list(self._tokens(text))
        self.pos = 0

    @staticmethod
    def _tokens(text: str):
        text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        for m in _TOKEN.finditer(text):
            line = np.searchsorted(starts, m.start(), side="right")
            kind = m.lastgroup
            value = m.group(kind)
            yield _Token(value.strip() if kind == "quoted" else value, int(line), m.start() - starts[line - 1] + 1,
                         "word" if kind == "quoted" else kind)

    # ------------------------------------------------------------ token helpers
    def error(self, token: _Token | None, found: str, expected: str) -> DataFileError:
        where = f"line {token.line}, column {token.column}" if token else "the end of the file"
        return DataFileError(f"{self.path}: {where}: found {found}; expected {expected}")

    def peek(self) -> _Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str, text: str | None = None, kind: str | None = None) -> _Token:
        token = self.peek()
        if token is None:
            raise self.error(None, "the end of the file", expected)
        if (text is not None and token.text != text) or (kind is not None and token.kind != kind):
            raise self.error(token, repr(token.text), expected)
        self.pos += 1
        return token

    def until(self, *stops: str) -> list[_Token]:
        """Tokens up to (not including) the first punctuation in ``stops``."""
        out = []
        while (token := self.peek()) is not None and not (token.kind == "punct" and token.text in stops):
            out.append(token)
            self.pos += 1
        return out

    def skip_statement(self) -> None:
        self.until(";", "}")
        self.take("';' after a property", ";")

    # ------------------------------------------------------------ grammar
    def network(self) -> _Network:
        net = _Network()
        while (token := self.peek()) is not None:
            keyword = token.text.lower()
            if keyword not in KEYWORDS:
                close = difflib.get_close_matches(keyword, KEYWORDS, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.error(token, repr(token.text) + hint, "a block: 'network', 'variable' or 'probability'")
            self.pos += 1
            getattr(self, f"_{keyword}")(net, token)
        return net

    def _network(self, net: _Network, start: _Token) -> None:
        net.name = " ".join(t.text for t in self.until("{")) or None
        self.take("'{' opening the network block", "{")
        while (token := self.peek()) is not None and token.text != "}":
            self.skip_statement()
        self.take("'}' closing the network block", "}")

    def _variable(self, net: _Network, start: _Token) -> None:
        words = self.until("{")
        if not words:
            raise self.error(self.peek(), "no name", "a variable name after 'variable'")
        name = " ".join(t.text for t in words)
        if name in net.states:
            line, column = net.declared_at[name]
            raise self.error(words[0], f"variable {name!r} declared again", f"one declaration (the first is at line "
                                                                           f"{line}, column {column})")
        self.take(f"'{{' opening variable {name!r}", "{")
        states = None
        while (token := self.peek()) is not None and token.text != "}":
            if token.text.lower() == "type":
                states = self._states(name)
            elif token.text.lower() == "property":
                self.skip_statement()
            else:
                close = difflib.get_close_matches(token.text.lower(), ("type", "property"), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.error(token, repr(token.text) + hint, f"'type' or 'property' in variable {name!r}")
        self.take(f"'}}' closing variable {name!r}", "}")
        if states is None:
            raise self.error(start, f"variable {name!r} without a type", "'type discrete [ K ] { ... };'")
        net.states[name] = states
        net.declared_at[name] = (words[0].line, words[0].column)

    def _states(self, name: str) -> list[str]:
        self.take("'type'")
        kind = self.take(f"'discrete' after 'type' in variable {name!r}", kind="word")
        if kind.text.lower() != "discrete":
            raise self.error(kind, repr(kind.text),
                             f"'discrete' (the kit reads discrete networks) in variable {name!r}")
        self.take(f"'[' before the number of states of {name!r}", "[")
        count = self.take(f"the number of states of {name!r}", kind="word")
        self.take(f"']' after the number of states of {name!r}", "]")
        self.take(f"'{{' opening the states of {name!r}", "{")
        states = [" ".join(t.text for t in group) for group in self._groups("}")]
        self.take(f"'}}' closing the states of {name!r}", "}")
        self.take(f"';' after the states of {name!r}", ";")
        if not count.text.isdigit() or int(count.text) != len(states):
            raise self.error(count, f"{count.text!r} states declared and {len(states)} listed {states}",
                             f"the number of states listed for {name!r}")
        if len(set(states)) != len(states) or not all(states):
            raise self.error(count, f"states {states} of {name!r}", "distinct, non-empty state names")
        return states

    def _groups(self, stop: str) -> list[list[_Token]]:
        """Comma-separated groups of words up to ``stop`` (or a ';', '{' or '}'); without any
        comma, each word is a group of its own (the space-separated form)."""
        words = self.until(stop, ";", "{", "}")
        if not any(t.text == "," for t in words):
            return [[t] for t in words]
        groups: list[list[_Token]] = [[]]
        for token in words:
            if token.text == ",":
                groups.append([])
            else:
                groups[-1].append(token)
        return [g for g in groups if g]

    def _probability(self, net: _Network, start: _Token) -> None:
        self.take("'(' after 'probability'", "(")
        child_words = self.until("|", ")")
        if not child_words:
            raise self.error(self.peek(), "no variable", "the variable of the probability block")
        parent_groups: list[list[_Token]] = []
        if self.peek() is not None and self.peek().text == "|":
            self.pos += 1
            parent_groups = self._groups(")")
        elif len(child_words) > 1:  # the old form 'probability ( child parent ... )'
            parent_groups = [[t] for t in child_words[1:]]
            child_words = child_words[:1]
        self.take("')' closing the probability header", ")")
        child = self._declared(net, child_words)
        parents = [self._declared(net, g) for g in parent_groups]
        if child in net.tables:
            raise self.error(child_words[0], f"a second probability block for {child!r}", "one block per variable")
        self.take(f"'{{' opening the probability block of {child!r}", "{")
        net.parents[child] = parents
        net.block_at[child] = (start.line, start.column)
        net.tables[child] = self._table(net, child, parents, start)
        self.take(f"'}}' closing the probability block of {child!r}", "}")

    def _declared(self, net: _Network, words: list[_Token]) -> str:
        name = " ".join(t.text for t in words)
        if name not in net.states:
            close = difflib.get_close_matches(name, list(net.states), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise self.error(words[0], f"variable {name!r}{hint}", "a variable declared by an earlier 'variable' block")
        return name

    def _numbers(self, what: str) -> tuple[_Token | None, np.ndarray]:
        first = self.peek()
        words = [t for group in self._groups(";") for t in group]
        self.take(f"';' ending {what}", ";")
        bad = next((t for t in words if not _is_number(t.text)), None)
        if bad is not None:
            raise self.error(bad, repr(bad.text), f"a probability (a finite number) in {what}")
        return first, np.array([float(t.text) for t in words])

    def _table(self, net: _Network, child: str, parents: list[str], start: _Token) -> np.ndarray:
        k = len(net.states[child])
        cards = [len(net.states[p]) for p in parents]
        columns = int(np.prod(cards))
        values = np.full((k, columns), np.nan)
        default = None
        while (token := self.peek()) is not None and token.text != "}":
            word = token.text.lower()
            if token.text == "(":
                self.pos += 1
                names = [" ".join(t.text for t in g) for g in self._groups(")")]
                self.take("')' closing a row's parent states", ")")
                column = self._column(net, parents, names, token, child)
                first, row = self._numbers(f"the row {tuple(names)} of {child!r}")
                self._expect_count(first or token, row, k, f"the row {tuple(names)} of {child!r}")
                if not np.isnan(values[0, column]):
                    raise self.error(token, f"the row {tuple(names)} of {child!r} again", "one row per configuration")
                values[:, column] = row
            elif word == "table":
                self.pos += 1
                first, row = self._numbers(f"the table of {child!r}")
                self._expect_count(first or token, row, k * columns, f"the table of {child!r} ({k} states x "
                                                                      f"{columns} parent configurations)")
                values = row.reshape(k, columns)
            elif word == "default":
                self.pos += 1
                first, default = self._numbers(f"the default row of {child!r}")
                self._expect_count(first or token, default, k, f"the default row of {child!r}")
            elif word == "property":
                self.skip_statement()
            else:
                close = difflib.get_close_matches(word, ("table", "default", "property"), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.error(token, repr(token.text) + hint,
                                 f"'(parent states) probabilities;', 'table ...;' or 'default ...;' in {child!r}")
        missing = np.isnan(values[0])
        if missing.any():
            if default is None:
                config = next(itertools.islice(itertools.product(*(net.states[p] for p in parents)),
                                               int(np.flatnonzero(missing)[0]), None))
                raise self.error(start, f"no row for the parent states {config} of {child!r}",
                                 "a row for every configuration of the parents, or a 'default' row")
            values[:, missing] = default[:, None]
        bad = np.flatnonzero((values < 0).any(axis=0) | (values > 1).any(axis=0)
                             | (np.abs(values.sum(axis=0) - 1) > SUM_TOLERANCE))
        if bad.size:
            config = next(itertools.islice(itertools.product(*(net.states[p] for p in parents)), int(bad[0]), None))
            raise self.error(start, f"probabilities {values[:, bad[0]].tolist()} of {child!r} given {config}",
                             "numbers in [0, 1] that sum to 1")
        return values

    def _column(self, net: _Network, parents: list[str], names: list[str], token: _Token, child: str) -> int:
        if len(names) != len(parents):
            raise self.error(token, f"{len(names)} parent states {names}", f"{len(parents)}, one per parent {parents} "
                                                                          f"of {child!r}")
        index = 0
        for parent, state in zip(parents, names):
            states = net.states[parent]
            if state not in states:
                raise self.error(token, f"state {state!r} of {parent!r}", f"one of {states}")
            index = index * len(states) + states.index(state)
        return index

    def _expect_count(self, token: _Token, numbers: np.ndarray, count: int, what: str) -> None:
        if len(numbers) != count:
            raise self.error(token, f"{len(numbers)} numbers", f"{count} in {what}")


def _is_number(text: str) -> bool:
    """A finite number (``nan``, ``inf`` and the like are words, not probabilities)."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _check_acyclic(path: Path, net: _Network) -> None:
    """Refuse parents that make a directed cycle, at the probability block of a variable on it."""
    left = {child: set(parents) for child, parents in net.parents.items()}
    ready = [v for v, parents in left.items() if not parents]
    while ready:  # Kahn's order; every variable left after it has a parent left
        done = ready.pop()
        del left[done]
        for child, parents in left.items():
            if done in parents:
                parents.discard(done)
                if not parents:
                    ready.append(child)
    if not left:
        return
    walk, node = [], next(iter(left))
    while node not in walk:  # from child to a parent left, until a variable repeats
        walk.append(node)
        node = next(p for p in net.parents[node] if p in left)
    cycle = [node, *reversed(walk[walk.index(node) + 1:]), node]
    line, column = net.block_at[node]
    raise DataFileError(f"{path}: line {line}, column {column}: the probability blocks make the directed cycle "
                        f"{' -> '.join(cycle)}; expected a DAG (no variable among its own ancestors)")


def parse_bif(path: Path, text: str) -> Any:
    """The pgmpy ``DiscreteBayesianNetwork`` of the BIF ``text`` (read from ``path``, named in errors)."""
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    net = _Parser(path, text).network()
    undeclared = [name for name in net.states if name not in net.tables]
    if undeclared:
        line, column = net.declared_at[undeclared[0]]
        raise DataFileError(f"{path}: line {line}, column {column}: variable {undeclared[0]!r} has no probability "
                            "block; expected one 'probability' block per variable")
    _check_acyclic(path, net)
    model = DiscreteBayesianNetwork()
    model.add_nodes_from(net.states)
    model.add_edges_from((p, child) for child in net.tables for p in net.parents[child])
    model.name = net.name
    cpds = []
    for var in sorted(net.tables):
        names = {p: net.states[p] for p in net.parents[var]}
        names[var] = net.states[var]
        cpds.append(TabularCPD(var, len(net.states[var]), net.tables[var], evidence=net.parents[var],
                               evidence_card=[len(net.states[p]) for p in net.parents[var]], state_names=names))
    model.add_cpds(*cpds)
    return model
