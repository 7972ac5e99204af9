"""Join a backbone's weights from the parts that travelled to the device in separate calls, checking every sha256.

Standard library only: it runs on the device machine before anything of the package is imported.

    python -m experiments.gpu_joint.join_parts --parts /tmp/bb --backbone .dev/gpum/backbone
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import List, Optional


def join_parts(parts: Path, backbone: Path) -> Path:
    """Write ``backbone/model.safetensors`` from the parts ``backbone/parts.json`` lists (found in ``parts``).

    Raises:
        SystemExit: a part is missing or its sha256 differs, or the joined file's does (one line each).
    """
    manifest = json.loads((backbone / "parts.json").read_text(encoding="utf-8"))
    whole = hashlib.sha256()
    target = backbone / "model.safetensors"
    with open(target, "wb") as out:
        for record in manifest["parts"]:
            path = parts / record["name"]
            if not path.is_file():
                raise SystemExit(f"join_parts: {path} is missing (a call that carried it ran on another machine?)")
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() != record["sha256"]:
                raise SystemExit(f"join_parts: {path} has another sha256 than parts.json records")
            whole.update(data)
            out.write(data)
    if whole.hexdigest() != manifest["whole_sha256"]:
        target.unlink()
        raise SystemExit(f"join_parts: the joined {target} has another sha256 than parts.json records")
    return target


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=Path, required=True, help="the folder the parts were copied to")
    parser.add_argument("--backbone", type=Path, required=True, help="the exported backbone folder (parts.json)")
    args = parser.parse_args(argv)
    print(f"joined {join_parts(args.parts, args.backbone)}")


if __name__ == "__main__":
    main()
