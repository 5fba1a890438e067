"""Files a command writes: atomically (a temporary name, then a rename; nothing half-written
stays behind), and never over a file this call did not create unless the caller says so."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from .errors import UserError


def write_bytes_atomic(path, data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_text_atomic(path, text: str) -> Path:
    return write_bytes_atomic(path, text.encode())


def output_folder(folder, names: Iterable[str], force: bool = False) -> Path:
    """The folder a command writes `names` into: created if missing; an existing folder is
    used as it is, but a file of the same name inside is replaced only with force."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder} is a file, not a folder: pass --out with a folder name")
    taken = sorted(n for n in names if (folder / n).exists())
    if taken and not force:
        raise UserError(f"{folder} already holds {', '.join(taken)}: pass --force to replace "
                        "them, or --out with another folder")
    return folder


def output_file(path, default_name: str, force: bool = False, option: str = "--out") -> Path:
    """The file a command writes: inside `path` (named default_name) when path is a folder;
    an existing file is replaced only with force. option: the command's option that names the
    file, for the message."""
    path = Path(path)
    if path.is_dir():
        path = path / default_name
    if path.exists() and not force:
        raise UserError(f"{path} already exists: pass --force to replace it, or {option} with another name")
    return path


def schema_found(doc) -> str:
    """What a document says it is, for an error message: its schema, or what it lacks."""
    if not isinstance(doc, dict):
        return "not a JSON object"
    return "no 'schema' field" if doc.get("schema") is None else f"schema {doc['schema']!r}"


def read_json(path) -> object:
    """The JSON document at path, or ValueError with one line naming the problem."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"cannot read {path}: it is a folder; pass the JSON file a run wrote (run.json, bench.json)")
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ValueError(f"cannot read {path}: no such file") from None
    except UnicodeDecodeError:
        raise ValueError(f"cannot read {path}: not a text file") from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON ({exc.msg} at line {exc.lineno})") from None
