"""The rules of Caylus, one module per phase of the turn (rules 4).

| module | rules | what it holds |
|---|---|---|
| ``common`` | 5.3, 6 | entering a phase, granting favors, cube-kind choices |
| ``income`` | phase 1, 1.4 | income; the 2-player turn order flip |
| ``placement`` | phase 2, 3a, 3.3 | placing workers, the bridge price, the gate |
| ``special`` | phase 3 (3b-3f) | trading post, merchants' guild, joust field, stables, inn |
| ``provost`` | phase 4, 3c | the provost's paid move and the guild's free move |
| ``activation`` | phase 5, 3.2 | road buildings: production, market, peddler, options |
| ``construction`` | 5a-5c, 5.1 d | building tiles, their costs and place; the lawyer |
| ``castle`` | phase 6, 8.27 | batches, houses, the best builder's favor |
| ``end_of_turn`` | phase 7, 4.7, 4.8 | the bailiff, section scorings, the end of the game |
| ``favors`` | 5 | the favor table: row, column, sub-choices |

Each decision kind has a ``legal_<kind>`` / ``apply_<kind>`` pair here; the flat
dispatch tables that call them are in ``caylus_env.caylus.engine.hooks``.

A few small handlers on the per-decision path (the placement and provost drivers, the
gate, guild, provost, joust and inn decisions, the special buildings' steps, the section
scoring procedures) are ``@njit(inline="always")``: numba then inlines them into the
dispatch tables, as one module's inline code used to be, and the compiled game loop keeps
its speed (``python bench/compare_trees.py OLD NEW`` measures it; without the inlining the
whole-game layer was about 10% slower). Setup (rules
1.2-1.4) is in ``caylus_env.caylus.engine.setup``.
"""
