"""A generated database shaped like a Stack Overflow sample, for the query domains.

Gentzel et al. (2019, supplement Sec. 1.2) ran user-written queries against a sample of
the Stack Overflow data. That data cannot be fetched here, so the kit generates a
database with the same tables and the skew that makes queries differ: a few users
write most posts (Zipf activity), reputation follows activity, scores and view counts
are heavy-tailed, tags and words are Zipf-distributed. Everything follows from the seed.

Tables (row counts at ``scale=1``): users (8,000), posts (40,000 questions and answers),
comments (60,000), votes (120,000), badges (16,000), tags (400), post_tags (~45,000).
Days count from 2008-01-01; every column is INTEGER or TEXT, so the same SQL runs on
SQLite and PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

COLUMNS = {
    "users": {"id": "INTEGER", "display_name": "TEXT", "reputation": "INTEGER",
              "creation_day": "INTEGER", "views": "INTEGER", "up_votes": "INTEGER",
              "down_votes": "INTEGER", "location": "TEXT"},
    "posts": {"id": "INTEGER", "post_type": "INTEGER", "parent_id": "INTEGER",
              "owner_user_id": "INTEGER", "creation_day": "INTEGER", "score": "INTEGER",
              "view_count": "INTEGER", "answer_count": "INTEGER", "comment_count": "INTEGER",
              "favorite_count": "INTEGER", "title": "TEXT", "body": "TEXT"},
    "comments": {"id": "INTEGER", "post_id": "INTEGER", "user_id": "INTEGER",
                 "creation_day": "INTEGER", "score": "INTEGER", "text": "TEXT"},
    "votes": {"id": "INTEGER", "post_id": "INTEGER", "user_id": "INTEGER",
              "vote_type": "INTEGER", "creation_day": "INTEGER"},
    "badges": {"id": "INTEGER", "user_id": "INTEGER", "name": "TEXT", "class": "INTEGER",
               "day": "INTEGER"},
    "tags": {"id": "INTEGER", "name": "TEXT", "count": "INTEGER"},
    "post_tags": {"post_id": "INTEGER", "tag_id": "INTEGER"},
}

KEYS = {  # index level 1: unique indexes on ids, plain indexes on foreign keys
    "users": ["id"], "posts": ["id", "owner_user_id", "parent_id"],
    "comments": ["id", "post_id", "user_id"], "votes": ["id", "post_id", "user_id"],
    "badges": ["id", "user_id"], "tags": ["id"], "post_tags": ["post_id", "tag_id"],
}
FILTERED = {  # index level 2 adds the columns the workload filters and sorts on
    "users": ["reputation", "creation_day"], "posts": ["creation_day", "score", "view_count"],
    "comments": ["creation_day"], "votes": ["vote_type", "creation_day"],
    "badges": ["name"], "tags": ["name"],
}
INDEX_LEVELS = {0: "no indexes", 1: "keys (ids and foreign keys)",
                2: "keys plus commonly filtered columns"}

WORDS = (
    "python java javascript sql index query join table database server client error "
    "exception null pointer array list string map function class object method loop "
    "thread async await promise callback api rest json xml http request response "
    "file path read write stream buffer memory cache performance slow fast timeout "
    "linux windows docker build compile install package version update deploy test "
    "unit mock debug log config setting option value key type cast convert parse "
    "regex date time format number integer float decimal round sort filter group "
    "count sum average distinct order limit select insert delete update transaction "
    "lock deadlock connection pool socket port network proxy url encode decode utf "
    "unicode css html dom event click form input button style layout react angular "
    "vue node npm pip spring hibernate django flask rails php laravel android ios "
    "swift kotlin gradle maven git branch merge commit push pull rebase conflict"
).split()
BADGES = ("Teacher", "Student", "Editor", "Supporter", "Critic", "Scholar", "Commentator",
          "Autobiographer", "Popular Question", "Nice Answer", "Good Answer", "Great Answer",
          "Necromancer", "Enlightened", "Guru", "Famous Question", "Yearling", "Revival")
LOCATIONS = ("", "London", "Berlin", "New York", "Bangalore", "San Francisco", "Paris",
             "Toronto", "Sydney", "Seattle", "Moscow", "Beijing", "Sao Paulo", "Tokyo")
LAST_DAY = 4017  # 2018-12-31


@dataclass(frozen=True)
class StackDatabase:
    """The generated tables (pandas frames in :data:`COLUMNS` order) and their seed."""

    tables: dict[str, pd.DataFrame]
    seed: int
    scale: float

    def rows(self) -> dict[str, int]:
        return {name: len(frame) for name, frame in self.tables.items()}


def index_statements(level: int) -> list[str]:
    """``CREATE INDEX`` statements for an index level (0, 1 or 2), valid in SQLite and PostgreSQL."""
    if level not in INDEX_LEVELS:
        raise ValueError(f"index level must be one of {sorted(INDEX_LEVELS)}, got {level!r}")
    wanted = [(t, c) for t, cols in KEYS.items() for c in cols] if level >= 1 else []
    if level >= 2:
        wanted += [(t, c) for t, cols in FILTERED.items() for c in cols]
    return [f"CREATE {'UNIQUE ' if c == 'id' else ''}INDEX ix_{t}_{c} ON {t} ({c})"
            for t, c in wanted]


def create_statements() -> list[str]:
    return [f"CREATE TABLE {t} ({', '.join(f'{c} {ty}' for c, ty in cols.items())})"
            for t, cols in COLUMNS.items()]


def generate(seed: int = 0, scale: float = 1.0) -> StackDatabase:
    """Generate every table from ``seed``; ``scale`` multiplies the row counts."""
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    rng = np.random.default_rng(seed)
    n = {name: max(10, int(round(base * scale))) for name, base in
         {"users": 8000, "questions": 15000, "answers": 25000, "comments": 60000,
          "votes": 120000, "badges": 16000, "tags": 400}.items()}
    users, activity = _users(rng, n["users"])
    posts = _posts(rng, n["questions"], n["answers"], activity)
    tags, post_tags = _tags(rng, n["tags"], posts)
    tables = {
        "users": users, "posts": posts,
        "comments": _comments(rng, n["comments"], posts, activity),
        "votes": _votes(rng, n["votes"], posts, activity),
        "badges": _badges(rng, n["badges"], activity),
        "tags": tags, "post_tags": post_tags,
    }
    tables = {t: frame[list(COLUMNS[t])] for t, frame in tables.items()}
    return StackDatabase(tables, seed, scale)


def _zipf_weights(n: int, exponent: float, rng: np.random.Generator) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1) ** exponent
    return rng.permutation(weights / weights.sum())


def _nullable(values: np.ndarray, keep: np.ndarray) -> pd.Series:
    """Integers where ``keep``, SQL NULL elsewhere."""
    return pd.Series(values).where(keep).astype("Int64")


def _text(rng: np.random.Generator, n: int, low: int, high: int) -> list[str]:
    weights = 1.0 / np.arange(1, len(WORDS) + 1)
    words = rng.choice(len(WORDS), size=(n, high), p=weights / weights.sum())
    lengths = rng.integers(low, high + 1, size=n)
    return [" ".join(WORDS[w] for w in row[:k]) for row, k in zip(words, lengths)]


def _users(rng: np.random.Generator, n: int) -> tuple[pd.DataFrame, np.ndarray]:
    activity = _zipf_weights(n, 1.1, rng)
    reputation = np.maximum(1, (activity * n * 50 * rng.lognormal(0, 1, n))).astype(np.int64)
    frame = pd.DataFrame({
        "id": np.arange(1, n + 1),
        "display_name": [f"user{i}" for i in range(1, n + 1)],
        "reputation": reputation,
        "creation_day": np.sort(rng.integers(0, LAST_DAY, n)),
        "views": rng.negative_binomial(1, 0.02, n),
        "up_votes": rng.negative_binomial(1, 0.05, n),
        "down_votes": rng.negative_binomial(1, 0.3, n),
        "location": rng.choice(LOCATIONS, n),
    })
    return frame, activity


def _posts(rng: np.random.Generator, n_q: int, n_a: int, activity: np.ndarray) -> pd.DataFrame:
    n = n_q + n_a
    users = len(activity)
    owner = rng.choice(users, size=n, p=activity) + 1
    day = rng.integers(0, LAST_DAY, n)
    parent = np.full(n, -1, dtype=np.int64)
    popularity = _zipf_weights(n_q, 0.9, rng)
    parent[n_q:] = rng.choice(n_q, size=n_a, p=popularity) + 1
    day[n_q:] = np.minimum(LAST_DAY, day[parent[n_q:] - 1] + rng.geometric(0.05, n_a))
    is_question = np.arange(n) < n_q
    answers = np.bincount(parent[n_q:], minlength=n_q + 1)[1:n_q + 1]
    views = (popularity * n_q * 300 * rng.lognormal(0, 0.7, n_q)).astype(np.int64)
    score = rng.negative_binomial(1, 0.25, n) - rng.binomial(1, 0.1, n) * rng.integers(1, 5, n)
    frame = pd.DataFrame({
        "id": np.arange(1, n + 1),
        "post_type": np.where(is_question, 1, 2),
        "parent_id": _nullable(parent, parent > 0),
        "owner_user_id": owner, "creation_day": day, "score": score,
        "view_count": _nullable(np.r_[views, np.zeros(n_a, int)], is_question),
        "answer_count": _nullable(np.r_[answers, np.zeros(n_a, int)], is_question),
        "comment_count": 0, "favorite_count": rng.negative_binomial(1, 0.6, n),
        "title": _text(rng, n_q, 4, 10) + [None] * n_a,
        "body": _text(rng, n, 8, 30),
    })
    return frame


def _comments(rng: np.random.Generator, n: int, posts: pd.DataFrame, activity: np.ndarray) -> pd.DataFrame:
    weights = (posts["score"].to_numpy() + 5.0).clip(1)
    post = rng.choice(len(posts), size=n, p=weights / weights.sum())
    posts["comment_count"] = np.bincount(post, minlength=len(posts))
    return pd.DataFrame({
        "id": np.arange(1, n + 1), "post_id": post + 1,
        "user_id": rng.choice(len(activity), size=n, p=activity) + 1,
        "creation_day": np.minimum(LAST_DAY, posts["creation_day"].to_numpy()[post]
                                   + rng.geometric(0.02, n)),
        "score": rng.negative_binomial(1, 0.7, n), "text": _text(rng, n, 4, 16),
    })


def _votes(rng: np.random.Generator, n: int, posts: pd.DataFrame, activity: np.ndarray) -> pd.DataFrame:
    weights = (posts["score"].to_numpy() + 2.0).clip(0.5)
    post = rng.choice(len(posts), size=n, p=weights / weights.sum())
    vote_type = rng.choice([1, 2, 3, 5, 6, 10], size=n, p=[0.03, 0.75, 0.08, 0.1, 0.02, 0.02])
    user = rng.choice(len(activity), size=n, p=activity) + 1
    return pd.DataFrame({
        "id": np.arange(1, n + 1), "post_id": post + 1,
        "user_id": _nullable(user, vote_type == 5),  # only favourites name their voter
        "vote_type": vote_type,
        "creation_day": np.minimum(LAST_DAY, posts["creation_day"].to_numpy()[post]
                                   + rng.geometric(0.01, n)),
    })


def _badges(rng: np.random.Generator, n: int, activity: np.ndarray) -> pd.DataFrame:
    names = np.asarray(BADGES)
    rarity = _zipf_weights(len(names), 1.0, np.random.default_rng(0))
    name = rng.choice(len(names), size=n, p=rarity)
    return pd.DataFrame({
        "id": np.arange(1, n + 1), "user_id": rng.choice(len(activity), size=n, p=activity) + 1,
        "name": names[name], "class": 1 + name % 3, "day": rng.integers(0, LAST_DAY, n),
    })


def _tags(rng: np.random.Generator, n: int, posts: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    names = [WORDS[i] if i < len(WORDS) else f"{WORDS[i % len(WORDS)]}-{i // len(WORDS)}"
             for i in range(n)]
    questions = posts.loc[posts["post_type"] == 1, "id"].to_numpy()
    per_question = rng.integers(1, 6, len(questions))
    weights = 1.0 / np.arange(1, n + 1)
    tag = rng.choice(n, size=per_question.sum(), p=weights / weights.sum()) + 1
    pairs = pd.DataFrame({"post_id": np.repeat(questions, per_question), "tag_id": tag})
    pairs = pairs.drop_duplicates().reset_index(drop=True)
    count = np.bincount(pairs["tag_id"], minlength=n + 1)[1:]
    return pd.DataFrame({"id": np.arange(1, n + 1), "name": names, "count": count}), pairs
