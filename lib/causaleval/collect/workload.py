"""A generated query workload (the subjects of the query domains) and its covariates.

Gentzel et al. (2019, supplement Sec. 1.2.3) describe each Postgres query by covariates
that exist before any treatment: tables referenced, total rows of those tables, join and
grouping operators, length in characters, and rows retrieved. :func:`query_covariates`
computes the same from the SQL text and the table sizes (creation year and queries by
the same user were Stack Exchange metadata that generated queries do not have).

The templates cover point lookups, joins over 1-5 tables, group-bys, top-N, range scans
and text search, in SQL that SQLite and PostgreSQL read alike (integer days, ``lower(x)
LIKE``, no dialect functions). Parameters are drawn from the data, so most queries
return rows; duplicates are removed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd

from causaleval.collect.stackdb import LAST_DAY, WORDS, StackDatabase

Template = Callable[[np.random.Generator, dict], str]


def _pick(rng: np.random.Generator, values) -> object:
    return values[int(rng.integers(len(values)))]


def _word(rng: np.random.Generator) -> str:
    return WORDS[min(int(rng.zipf(1.3)) - 1, len(WORDS) - 1)]


def _day(rng: np.random.Generator) -> int:
    return int(rng.integers(0, LAST_DAY - 400))


TEMPLATES: dict[str, Template] = {
    "user_by_id": lambda r, p: f"SELECT * FROM users WHERE id = {r.integers(1, p['users'] + 1)}",
    "post_by_id": lambda r, p: (
        f"SELECT id, title, score, view_count FROM posts WHERE id = {r.integers(1, p['posts'] + 1)}"),
    "user_posts": lambda r, p: (
        "SELECT p.id, p.title, p.score FROM posts p JOIN users u ON p.owner_user_id = u.id "
        f"WHERE u.id = {_pick(r, p['active_users'])} ORDER BY p.score DESC, p.id"),
    "answers_of_question": lambda r, p: (
        "SELECT a.id, a.score, a.owner_user_id FROM posts q JOIN posts a ON a.parent_id = q.id "
        f"WHERE q.id = {_pick(r, p['questions'])} ORDER BY a.score DESC"),
    "posts_in_range": lambda r, p: (
        "SELECT id, score FROM posts WHERE post_type = 1 AND creation_day BETWEEN "
        f"{(d := _day(r))} AND {d + int(r.integers(1, 120))}"),
    "top_questions": lambda r, p: (
        f"SELECT id, title, view_count FROM posts WHERE post_type = 1 AND score >= "
        f"{r.integers(0, 8)} ORDER BY view_count DESC LIMIT {r.integers(5, 100)}"),
    "top_users_since": lambda r, p: (
        f"SELECT id, display_name, reputation FROM users WHERE creation_day > {_day(r)} "
        f"ORDER BY reputation DESC LIMIT {r.integers(5, 50)}"),
    "comments_on_reputable": lambda r, p: (
        "SELECT c.id, c.score FROM users u JOIN posts p ON p.owner_user_id = u.id "
        "JOIN comments c ON c.post_id = p.id "
        f"WHERE u.reputation > {r.integers(100, 5000)} AND p.score > {r.integers(0, 10)}"),
    "tags_of_users": lambda r, p: (
        "SELECT t.name, count(*) FROM tags t JOIN post_tags pt ON pt.tag_id = t.id "
        "JOIN posts p ON p.id = pt.post_id JOIN users u ON u.id = p.owner_user_id "
        f"WHERE u.reputation BETWEEN {(lo := int(r.integers(1, 2000)))} AND {lo + int(r.integers(10, 3000))} "
        f"GROUP BY t.name ORDER BY count(*) DESC, t.name LIMIT {r.integers(5, 30)}"),
    "tagged_comments": lambda r, p: (
        "SELECT c.id, c.score FROM tags t JOIN post_tags pt ON pt.tag_id = t.id "
        "JOIN posts p ON p.id = pt.post_id JOIN comments c ON c.post_id = p.id "
        "JOIN users u ON u.id = c.user_id "
        f"WHERE t.name = '{_pick(r, p['rare_tags'])}' AND u.reputation > {r.integers(10, 5000)} "
        f"AND c.score > {r.integers(0, 3)}"),
    "votes_by_type": lambda r, p: (
        f"SELECT vote_type, count(*) FROM votes WHERE creation_day > {_day(r)} GROUP BY vote_type"),
    "score_by_year": lambda r, p: (
        "SELECT creation_day / 365, avg(score) FROM posts WHERE owner_user_id IN "
        f"(SELECT id FROM users WHERE reputation > {r.integers(10, 20000)}) GROUP BY creation_day / 365"),
    "title_search": lambda r, p: (
        f"SELECT id, title FROM posts WHERE post_type = 1 AND lower(title) LIKE '%{_word(r)} {_word(r)}%'"),
    "comment_search": lambda r, p: (
        f"SELECT count(*) FROM comments WHERE lower(text) LIKE '%{_word(r)}%{_word(r)}%'"),
    "prolific_answerers": lambda r, p: (
        "SELECT owner_user_id, count(*) FROM posts WHERE post_type = 2 GROUP BY owner_user_id "
        f"HAVING count(*) > {r.integers(2, 40)} ORDER BY count(*) DESC, owner_user_id"),
    "unanswered": lambda r, p: (
        "SELECT q.id FROM posts q LEFT JOIN posts a ON a.parent_id = q.id "
        f"WHERE q.post_type = 1 AND q.creation_day > {_day(r)} AND a.id IS NULL "
        f"ORDER BY q.id LIMIT {r.integers(10, 200)}"),
    "badges_by_class": lambda r, p: (
        f"SELECT name, count(*) FROM badges WHERE class = {r.integers(1, 4)} GROUP BY name "
        f"ORDER BY count(*) DESC, name LIMIT {r.integers(3, 10)}"),
    "most_voted_in_range": lambda r, p: (
        "SELECT p.id, count(*) FROM posts p JOIN votes v ON v.post_id = p.id WHERE p.creation_day "
        f"BETWEEN {(d := _day(r))} AND {d + int(r.integers(5, 200))} AND v.vote_type = 2 "
        f"GROUP BY p.id ORDER BY count(*) DESC, p.id LIMIT {r.integers(5, 50)}"),
    "tag_cooccurrence": lambda r, p: (
        "SELECT t2.name, count(*) FROM post_tags a JOIN tags t1 ON t1.id = a.tag_id "
        "JOIN post_tags b ON b.post_id = a.post_id JOIN tags t2 ON t2.id = b.tag_id "
        f"WHERE t1.name = '{_pick(r, p['tags'])}' AND t2.id <> t1.id GROUP BY t2.name "
        f"ORDER BY count(*) DESC, t2.name LIMIT {r.integers(5, 20)}"),
}


def generate_workload(db: StackDatabase, n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` distinct queries, templates drawn uniformly; columns ``template, sql``.

    Deterministic given ``db`` and ``seed``; raises if the templates cannot yield ``n``
    distinct queries (point lookups on a tiny database run out first).
    """
    rng = np.random.default_rng(seed)
    posts = db.tables["posts"]
    pools = {
        "users": len(db.tables["users"]), "posts": len(posts),
        "questions": posts.loc[posts["post_type"] == 1, "id"].to_numpy(),
        "active_users": np.unique(posts["owner_user_id"].to_numpy()),
        "tags": (tags := db.tables["tags"]["name"].to_numpy())[:60],
        "rare_tags": tags[:60][min(20, len(tags) // 4):],
    }
    names = list(TEMPLATES)
    seen: dict[str, str] = {}
    for _ in range(50 * n):
        if len(seen) == n:
            break
        name = names[int(rng.integers(len(names)))]
        seen.setdefault(TEMPLATES[name](rng, pools), name)
    if len(seen) < n:
        raise ValueError(f"the templates yielded only {len(seen)} distinct queries of the {n} asked; "
                         "use a larger database scale")
    return pd.DataFrame({"template": list(seen.values()), "sql": list(seen)})


_TABLE = re.compile(r"\b(?:FROM|JOIN)\s+(\w+)", re.IGNORECASE)


def query_covariates(sql: str, table_rows: dict[str, int]) -> dict[str, int]:
    """Covariates of one query, computed from its text (supplement Sec. 1.2.3).

    ``num_ref_tables``: distinct tables named after FROM or JOIN; ``total_ref_rows``: the
    sum of their row counts; ``num_joins``: JOIN operators; ``num_group_by``: GROUP BY
    clauses; ``num_subqueries``: nested SELECTs; ``num_predicates``: AND/OR-joined
    conditions in WHERE/HAVING clauses (counted as 1 + ANDs + ORs per clause);
    ``length_chars``: characters. Keywords inside string literals do not count.
    """
    code = re.sub(r"'(?:[^']|'')*'", "''", sql)
    tables = sorted({t.lower() for t in _TABLE.findall(code)})
    unknown = [t for t in tables if t not in table_rows]
    if unknown:
        raise ValueError(f"query references unknown table(s) {unknown}: {sql[:80]}")
    upper = code.upper()
    clauses = len(re.findall(r"\b(?:WHERE|HAVING)\b", upper))
    return {
        "num_ref_tables": len(tables),
        "total_ref_rows": int(sum(table_rows[t] for t in tables)),
        "num_joins": len(re.findall(r"\bJOIN\b", upper)),
        "num_group_by": len(re.findall(r"\bGROUP\s+BY\b", upper)),
        "num_subqueries": len(re.findall(r"\(\s*SELECT\b", upper)),
        "num_predicates": clauses + len(re.findall(r"\b(?:AND|OR)\b", upper))
        - len(re.findall(r"\bBETWEEN\s+\S+\s+AND\b", upper)),
        "length_chars": len(sql),
    }
