"""Commands imported only when used, so ``coherence-metric --help`` never loads training or torch."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import click

from ..errors import CoherenceMetricError
from ..install_hints import pip_install_hint

#: The package a lazy command lives in -> the extra that installs its dependencies.
_EXTRAS = {"coherence_metric.training": "train", "coherence_metric.benchmarks": "bench"}


#: A checkout's folders that install inside the package (setup.py's ``MAPPED``): package -> folder.
CHECKOUT_FOLDERS = {"coherence_metric.research": "research", "coherence_metric.training": "training",
                    "coherence_metric.benchmarks": "benchmarks"}


class _CheckoutFolders(importlib.abc.MetaPathFinder):
    """Finds ``coherence_metric.training`` (and ``.research``, ``.benchmarks``) in the folders of a checkout."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Any = None) -> Optional[importlib.machinery.ModuleSpec]:
        folder = CHECKOUT_FOLDERS.get(fullname)
        if folder is None:  # their submodules are found through the package's own __path__
            return None
        return importlib.util.spec_from_file_location(fullname, self.root / folder / "__init__.py",
                                                      submodule_search_locations=[str(self.root / folder)])


def mount_checkout() -> bool:
    """In a checkout that was never installed (a device machine that received the working tree and has the
    dependencies but no ``pip install``), make ``coherence_metric.training``, ``.research`` and ``.benchmarks`` import
    from the folders beside ``coherence_metric/``, as setup.py maps them in an install. Returns whether it did: not
    when they import already, or when this ``coherence_metric`` is not a checkout's (no setup.py beside it)."""
    if importlib.util.find_spec("coherence_metric.training") is not None:
        return False
    root = Path(__file__).resolve().parents[2]
    if not (root / "setup.py").is_file() or not all((root / folder / "__init__.py").is_file()
                                                    for folder in CHECKOUT_FOLDERS.values()):
        return False
    if not any(isinstance(finder, _CheckoutFolders) for finder in sys.meta_path):
        sys.meta_path.append(_CheckoutFolders(root))
    return True


def _unavailable(name: str, reason: str) -> click.Command:
    def callback(args: Any = None) -> None:
        raise CoherenceMetricError(f"`coherence-metric {name}` is not available: {reason}")

    return click.Command(
        name,
        callback=callback,
        help=f"(not available: {reason})",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        params=[click.Argument(["args"], nargs=-1, required=False)],
    )


def _missing_own_module(module_name: str, package: str) -> str:
    """Why one of our own modules is missing: not installed, or another ``package`` first on ``sys.path``."""
    import importlib.util

    try:
        found = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        found = None
    if found is not None and found.origin:
        return (f"module {module_name} not found in the '{package}' package imported from {found.origin}: "
                "another package of that name may shadow coherence-metric's (run from another folder, or reinstall)")
    extra = _EXTRAS.get(package, package)
    return (f"module {module_name} is not installed: reinstall coherence-metric with its extra {extra!r} "
            f"({pip_install_hint(extra)})")


class LazyGroup(click.Group):
    """A click group whose listed subcommands are ``module:attribute`` strings imported on first use."""

    def __init__(self, *args: Any, lazy_subcommands: Optional[Dict[str, str]] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = dict(lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy_subcommands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        if cmd_name in self.lazy_subcommands:
            return self._load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def _load(self, name: str) -> click.Command:
        module_name, attribute = self.lazy_subcommands[name].split(":")
        package = next((name for name in _EXTRAS if module_name.startswith(name + ".")), module_name.split(".")[0])
        extra = _EXTRAS.get(package, package)
        try:
            if package in _EXTRAS:
                mount_checkout()  # `python3 -m coherence_metric.cli train ...` from an uninstalled checkout
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name and (error.name == module_name or module_name.startswith(error.name + ".")):
                return _unavailable(name, _missing_own_module(module_name, package))
            return _unavailable(name, f"it needs the module {error.name}: {pip_install_hint(extra)}")
        command = getattr(module, attribute, None)
        if not isinstance(command, click.Command):
            where = getattr(module, "__file__", None) or module_name
            return _unavailable(name, f"{module_name}:{attribute} is not a command (imported from {where}): another "
                                      f"'{package}' package may shadow coherence-metric's")
        return command
