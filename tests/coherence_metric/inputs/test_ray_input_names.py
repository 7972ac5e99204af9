"""How ``score --ray`` names one file of a dataset in its messages: the file name goes into the URI's path, before
any query string (``s3://b/in/bad.jsonl?endpoint_override=...``), so the name can be pasted back as a URI.

``_name`` is tested directly with a ``Location`` that has no filesystem: nothing here touches the network.
"""

from __future__ import annotations

import os

import pytest

from coherence_metric.inputs.ray_io import Location, _name

QUERY = "endpoint_override=localhost:9000&scheme=http"


@pytest.mark.parametrize("given", [f"s3://b/in/?{QUERY}", f"s3://b/in?{QUERY}"])
def test_s3_file_name_goes_before_the_query_string(given: str) -> None:
    location = Location(given, None, "b/in")
    assert _name(location, "b/in/bad.jsonl") == f"s3://b/in/bad.jsonl?{QUERY}"


def test_s3_nested_file_name_goes_before_the_query_string() -> None:
    location = Location(f"s3://b/in/?{QUERY}", None, "b/in")
    assert _name(location, "b/in/sub/bad.jsonl") == f"s3://b/in/sub/bad.jsonl?{QUERY}"


def test_uri_without_query_string_is_unchanged() -> None:
    location = Location("s3://b/in/", None, "b/in")
    assert _name(location, "b/in/bad.jsonl") == "s3://b/in/bad.jsonl"


def test_the_dataset_file_itself_keeps_the_users_spelling() -> None:
    location = Location(f"s3://b/in/bad.jsonl?{QUERY}", None, "b/in/bad.jsonl")
    assert _name(location, "b/in/bad.jsonl") == f"s3://b/in/bad.jsonl?{QUERY}"


def test_local_folder_with_question_mark_is_a_plain_path(tmp_path) -> None:
    folder = str(tmp_path / "what?")
    location = Location(folder + "/", None, folder)
    assert _name(location, os.path.join(folder, "bad.jsonl")) == folder + "/bad.jsonl"
