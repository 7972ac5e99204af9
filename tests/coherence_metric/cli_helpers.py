"""What every CLI test module needs: invoking the real command group, and the package's one-line error rule.

The group comes from ``coherence_metric.cli.commands``, which registers every command: ``coherence_metric.cli.cli``
alone knows only the commands some earlier import happened to register, so a test module run by itself would get
"No such command".
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from click.testing import CliRunner, Result

from coherence_metric.cli.commands import cli


def invoke(runner: CliRunner, args: Sequence[str], **kwargs: Any) -> Result:
    """Run ``coherence-metric ARGS`` in-process; an unexpected exception fails the test with its traceback."""
    return runner.invoke(cli, list(args), catch_exceptions=False, **kwargs)


def assert_one_line_error(result: Result, *fragments: str) -> None:
    """Exit status 2 and exactly one ``coherence-metric: error: ...`` line on stderr holding every fragment; no
    traceback anywhere."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("coherence-metric: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert "Traceback" not in result.output


#: Four short texts of two sentences each, for CLI runs that only need some text.
TEXTS = ["The council met on Tuesday. It approved three new lines.",
         "The river rose in the night. By morning the fields were flooded.",
         "Maria found a bird. She kept it warm until it healed.",
         "The bridge closed in May. It will reopen in winter."]


def invoke_as_main(args: Sequence[str], **kwargs: Any) -> Result:
    """Run the CLI as ``main`` does: warnings and hints printed as one ``coherence-metric: warning:`` line on
    stderr."""
    from coherence_metric.cli import _show_warning

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _show_warning
        return CliRunner().invoke(cli, list(args), catch_exceptions=False, **kwargs)
