"""The release targets and ship rules, read from ``targets.toml`` beside this module, with typed accessors.

A target typed as a constant in each generator and check drifted: the same CPU row read ">= 60x" on a model card and
">= 35x" on the speed page. So every threshold is written once, in ``targets.toml``, and the cards, the speed table,
the model history, the int8 check and the localisation suites read it here. The file ships in the wheel (setup.cfg's
package_data), so an installed ``coherence-metric benchmark`` judges its runs by the same numbers. It is read with
tomllib (Python 3.11+); on Python 3.10 by :func:`parse_plain_tables`, which reads the plain subset it is written in.

The one speed rule, :meth:`Targets.cpu_min_ratio`: the default tier's ratio to the paper-faithful reference is held to
``speed.cpu_native_bf16_min_ratio`` on a CPU with native bf16 (AMX or AVX512-BF16, the flags a speed report's CPU
description names) and to ``speed.cpu_other_min_ratio`` elsewhere; the accurate tier to ``speed.accurate_min_ratio``
on every CPU.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional, Type, TypeVar

from coherence_metric.toolkit import BF16_CPU_FLAGS

if sys.version_info >= (3, 11):
    import tomllib

    _parse: Callable[[str], Dict[str, Any]] = tomllib.loads
    _ParseError: Type[Exception] = tomllib.TOMLDecodeError
else:  # Python 3.10 has no tomllib, and a dependency for one small file is not worth it
    _parse = None
    _ParseError = ValueError

#: The data file, beside this module (installed as ``coherence_metric/benchmarks/reporting/targets.toml``).
TARGETS_FILE = Path(__file__).with_name("targets.toml")


class TargetsError(ValueError):
    """The targets file is missing, does not parse, or lacks or misspells a key; the message names the file."""


@dataclass(frozen=True)
class SpeedTargets:
    """The speed suite's targets at 256 tokens, and the long-text and GPU ones."""

    min_share_of_limit: float
    cpu_native_bf16_min_ratio: float
    cpu_other_min_ratio: float
    accurate_min_ratio: float
    long_text_min_ratio: float
    gpu_default_goal_texts_per_second: float


@dataclass(frozen=True)
class Int8Targets:
    """The three conditions an opt-in int8 path must pass to ship."""

    min_speedup: float
    min_winners_kept: float
    max_batch_dependence: float


@dataclass(frozen=True)
class ReleaseTargets:
    """The default's release targets (and the MiniLM opt-ins'); percentages as printed (62.0 is 62%)."""

    summary_spearman_min: float
    summary_spearman_low_above: float
    human_dev_mean_min_percent: float
    first_sentence_above_whole_max_percent: float
    first_minus_whole_max_sd: float
    wsj_permuted_min_percent: float
    news_permuted_min_percent: float
    insted_wiki_min_percent: float
    probe_min_percent: float


@dataclass(frozen=True)
class AccurateTargets:
    """The accurate tier's ship rule."""

    summary_spearman_min: float
    summary_spearman_low_above: float
    system_kendall_min: float
    human_dev_mean_min_percent: float
    own_shuffle_min_percent: float
    first_sentence_above_whole_max_percent: float
    permuted_max_points_below_default: float
    probe_min_percent: float


@dataclass(frozen=True)
class DefaultTargets:
    """The rule a default is held to from 0.9.0 on (the accurate tier, since it became the default)."""

    summary_spearman_min: float
    system_kendall_min: float
    human_dev_mean_min_percent: float
    own_shuffle_min_percent: float
    first_sentence_above_whole_max_percent: float
    permuted_max_points_below_fast: float
    probe_min_percent: float


@dataclass(frozen=True)
class LocalisationTargets:
    """explain's transitions on the synthetic localisation split."""

    top1_over_random_min: float


@dataclass(frozen=True)
class CoheSentiaTargets:
    """explain's kinds of break on the CoheSentia dev ruler."""

    min_marked_sentences: int
    auc_min: float
    top1_over_random_min: float
    fully_coherent_flagged_max: float
    duplicates_found_min: float
    clean_texts_flagged_max: float
    flags_auc_min: float
    flags_top1_over_random_min: float
    kinds_named_right_min: float


@dataclass(frozen=True)
class Targets:
    """Every section of the targets file."""

    speed: SpeedTargets
    int8: Int8Targets
    release: ReleaseTargets
    accurate: AccurateTargets
    default: DefaultTargets
    localisation: LocalisationTargets
    cohesentia: CoheSentiaTargets

    def cpu_min_ratio(self, cpu: str, accurate: bool = False) -> float:
        """The reference ratio asked of a tier on the CPU a speed report names: the accurate tier's everywhere, the
        default's by whether the CPU has native bf16."""
        if accurate:
            return self.speed.accurate_min_ratio
        if has_native_bf16(cpu):
            return self.speed.cpu_native_bf16_min_ratio
        return self.speed.cpu_other_min_ratio


def has_native_bf16(cpu: str) -> bool:
    """Whether a report's CPU description (``cpu_description``: ``AMD EPYC (avx512_bf16)``, ``... (no native
    bf16)``) names a native bf16 flag."""
    return any(flag in cpu for flag in BF16_CPU_FLAGS)


_Section = TypeVar("_Section")


def _section(path: Path, data: Mapping[str, Any], name: str, kind: Type[_Section]) -> _Section:
    """One table of the file as ``kind``: every field present and numeric, no key the dataclass does not know (a
    misspelt key would otherwise leave a target silently unread)."""
    table = data.get(name)
    if not isinstance(table, dict):
        raise TargetsError(f"{path}: no [{name}] table")
    wanted = {field.name: field.type for field in fields(kind)}  # type: ignore[arg-type]
    unknown = sorted(set(table) - set(wanted))
    if unknown:
        raise TargetsError(f"{path}: [{name}] has unknown key {unknown[0]!r} (known: {', '.join(wanted)})")
    values = {}
    for key, declared in wanted.items():
        if key not in table:
            raise TargetsError(f"{path}: [{name}] lacks {key!r}")
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TargetsError(f"{path}: [{name}] {key} is {value!r}, not a number")
        values[key] = int(value) if declared == "int" else float(value)
    return kind(**values)


def read(path: Path) -> Targets:
    """The targets of ``path``, checked (a missing or misspelt key is a :class:`TargetsError` naming it)."""
    try:
        text = path.read_text(encoding="utf-8")
        data = _parse(text) if _parse is not None else parse_plain_tables(text)
    except FileNotFoundError:
        raise TargetsError(f"{path}: targets file not found") from None
    except _ParseError as error:
        raise TargetsError(f"{path}: not valid TOML ({error})") from None
    return Targets(
        speed=_section(path, data, "speed", SpeedTargets),
        int8=_section(path, data, "int8", Int8Targets),
        release=_section(path, data, "release", ReleaseTargets),
        accurate=_section(path, data, "accurate", AccurateTargets),
        default=_section(path, data, "default", DefaultTargets),
        localisation=_section(path, data, "localisation", LocalisationTargets),
        cohesentia=_section(path, data, "cohesentia", CoheSentiaTargets),
    )


_TABLE = re.compile(r"^\[(?P<name>[A-Za-z0-9_]+)\]$")
_NUMBER = re.compile(r"^(?P<key>[A-Za-z0-9_]+)\s*=\s*(?P<value>[-+]?[0-9][0-9_]*(\.[0-9_]+)?([eE][-+]?[0-9]+)?)$")


def parse_plain_tables(text: str) -> Dict[str, Any]:
    """The subset of TOML the targets file is written in (``[table]`` lines, ``key = number`` lines, ``#``
    comments), for Python 3.10, which has no tomllib; anything else is a ``ValueError`` naming the line."""
    data: Dict[str, Dict[str, Any]] = {}
    table: Optional[Dict[str, Any]] = None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        header, pair = _TABLE.match(line), _NUMBER.match(line)
        if header:
            table = data.setdefault(header.group("name"), {})
        elif pair and table is not None:
            value = pair.group("value").replace("_", "")
            table[pair.group("key")] = float(value) if any(c in value for c in ".eE") else int(value)
        else:
            raise ValueError(f"line {number}: {line!r} is not a [table] or a key = number line")
    return data


@functools.lru_cache(maxsize=None)
def _read_once(path: str) -> Targets:
    return read(Path(path))


def load(path: Optional[Path] = None) -> Targets:
    """The targets of ``path`` (default :data:`TARGETS_FILE`, looked up at call time so a test can point it at an
    edited copy), read once per path."""
    return _read_once(str(path or TARGETS_FILE))


def times(value: float) -> str:
    """A ratio target as the pages print it: ``60`` for 60.0, ``1.5`` for 1.5."""
    return f"{value:g}"


__all__ = ["TARGETS_FILE", "AccurateTargets", "CoheSentiaTargets", "Int8Targets", "LocalisationTargets",
           "ReleaseTargets", "SpeedTargets", "Targets", "TargetsError", "has_native_bf16", "load",
           "parse_plain_tables", "read", "times"]
