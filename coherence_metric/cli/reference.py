"""The whole command tree with the lazy commands (``train``, ``benchmark``) loaded: what the CLI reference page is
generated from. Importing it imports training and benchmarks, so only documentation tools do; ``main`` never does.
"""

from __future__ import annotations

import click

from .commands import cli as _root

with click.Context(_root) as _context:
    _commands = {name: _root.get_command(_context, name) for name in _root.list_commands(_context)}

cli = click.Group(name="coherence-metric", help=_root.help, params=list(_root.params),
                  context_settings=_root.context_settings,
                  commands={name: command for name, command in _commands.items() if command is not None})
"""The root group, every subcommand attached (mkdocs-click documents it)."""

__all__ = ["cli"]
