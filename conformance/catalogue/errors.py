"""The one error type for bad input: it always names the file, the line and what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

# libyaml's parser when PyYAML has it (it does on the platforms CI uses): the pure-Python one costs
# a second of CPU a process on the project's YAML, and every test worker reads it.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str) -> tuple[yaml.Node | None, Any]:
    """The YAML document's node tree (whose marks give each entry's line) and its data; raises
    ``yaml.YAMLError`` with a ``problem_mark`` where the text is not YAML."""
    return yaml.compose(text, Loader=_LOADER), yaml.load(text, Loader=_LOADER)


class InputError(Exception):
    """Bad input in a project file (catalogue, override, coverage module, lock, trace)."""

    def __init__(self, path: Path | str, line: int | None, message: str) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        super().__init__(f"{where}: {message}")


class InputErrors(Exception):
    """Several input errors found in one pass; reported together so that nothing is lost."""

    def __init__(self, errors: list[InputError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))
