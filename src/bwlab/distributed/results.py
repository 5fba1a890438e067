"""The documents `bwlab p2p` and `bwlab bench distributed` write: plain JSON with a schema
name, read back strictly enough that renderers never meet a malformed one."""
from __future__ import annotations

import json
from pathlib import Path

from ..core.files import read_json, schema_found, write_text_atomic

SCHEMA = "bwlab.distributed/1"
PROCEDURES = ("p2p", "bench-distributed")


def save(doc: dict, path) -> Path:
    return write_text_atomic(Path(path), json.dumps(doc, indent=1, default=float) + "\n")


def load(path, procedure: str) -> dict:
    """The document at path, of this procedure, or ValueError in one line."""
    path = Path(path)
    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        cmd = "bwlab p2p" if procedure == "p2p" else "bwlab bench distributed"
        raise ValueError(f"{path} is not a bwlab multi-GPU document ({schema_found(doc)}): this reads the JSON "
                         f"that `{cmd}` writes (schema {SCHEMA})")
    if doc.get("procedure") != procedure:
        raise ValueError(f"{path} is a {doc.get('procedure')!r} document, not {procedure!r}")
    key = "records" if procedure == "bench-distributed" else "all_to_all"
    if not isinstance(doc.get(key), list) or not all(isinstance(r, dict) for r in doc[key]):
        raise ValueError(f"{path}: {key!r} should be a list of objects")
    return doc
