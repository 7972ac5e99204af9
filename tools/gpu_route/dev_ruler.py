"""The pointwise dev ruler (``dev_report``'s ``DevData``) as gzipped JSON, for the trip to the device machine.

JSON, never a pickle: unpickling runs whatever code the file names, and this file reaches the device in a carried
folder. Reading it back rebuilds each dataclass field by field, so a file of another shape is refused in one line
naming it rather than loaded half-formed.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import zlib
from pathlib import Path
from typing import Any, Dict, List, Optional

from coherence_metric.errors import InputError
from coherence_metric.toolkit import parse_json

#: The file the ruler is written to, beside ``inputs.json``.
DEV_RULER_FILE = "dev_ruler.json.gz"
#: Bumped when the layout changes, so an export of another version is refused by name.
DEV_RULER_FORMAT = 1


def write_dev_ruler(data: Any, path: Path) -> None:
    """Write ``data`` (a ``DevData``) to ``path`` as gzipped JSON."""
    content = {"format": DEV_RULER_FORMAT, **dataclasses.asdict(data)}
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump(content, handle)


def read_dev_ruler(path: Path) -> Any:
    """The ``DevData`` that :func:`write_dev_ruler` wrote to ``path``.

    Raises:
        InputError: the file is missing, not gzipped JSON, or not a dev ruler of this version (one line).
    """
    if not path.is_file():
        raise InputError(f"{path} is missing: export the inputs again with `python -m tools.gpu_route "
                         "export-inputs` (an export that has no dev ruler is of an older version)")
    try:
        with gzip.open(path, "rb") as handle:
            raw = handle.read()
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(f"{path} is not a gzipped dev ruler ({error})") from None
    content = parse_json(raw, str(path))
    if not isinstance(content, dict) or content.get("format") != DEV_RULER_FORMAT:
        raise InputError(f"{path} is not a dev ruler of format {DEV_RULER_FORMAT}: export the inputs again")
    try:
        return _dev_data(content)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise InputError(f"{path} is not a dev ruler ({type(error).__name__}: {error})") from None


def _dev_data(content: Dict[str, Any]) -> Any:
    from coherence_metric.research.datasets.ratings import RatedSet, RatedText
    from coherence_metric.training.pointwise.dev_checks import DevTexts, ExtractiveTexts
    from coherence_metric.training.pointwise.dev_report import DevData
    from coherence_metric.training.pointwise.texts import PointwiseExample

    rated = [RatedSet(item["name"], tuple(RatedText(text["id"], text["group"], text["system"],
                                                    tuple(text["sentences"]), text["rating"])
                                          for text in item["texts"]),
                      item["criterion"], item["min_gap"], item["source"], dict(item["notes"]))
             for item in content["rated"]]
    examples = [PointwiseExample(item["id"], item["style"], list(item["positive"]),
                                 [(kind, list(sentences)) for kind, sentences in item["negatives"]],
                                 _optional_list(item.get("lead")))
                for item in content["examples"]]
    extractive = content.get("extractive")
    return DevData(rated, {name: list(indices) for name, indices in content["rated_texts"].items()}, examples,
                   DevTexts(**content["checks"]), None if extractive is None else ExtractiveTexts(**extractive),
                   content.get("bands"))


def _optional_list(value: Optional[List[str]]) -> Optional[List[str]]:
    return None if value is None else list(value)


__all__ = ["DEV_RULER_FILE", "DEV_RULER_FORMAT", "read_dev_ruler", "write_dev_ruler"]
