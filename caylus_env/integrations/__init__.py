"""Adapters from the caylus-env games to the RL libraries researchers train with.

Each module here adapts every registered game (``caylus_env.core.registry.GAME_NAMES``) to one
external library and imports that library lazily, inside its functions, so that
``import caylus_env`` and ``import caylus_env.integrations`` never need it. Install the
library through the project's extra of the same name (``pip install caylus-env[tianshou]``)
and see ``docs/integrations.md`` for the lines a user writes with each library.
"""
