import pytest

from bwlab.core import files
from bwlab.core.errors import UserError


def test_atomic_write_leaves_no_temporary_file(tmp_path):
    files.write_text_atomic(tmp_path / "a" / "x.txt", "hello")
    assert (tmp_path / "a" / "x.txt").read_text() == "hello"
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["x.txt"]


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def boom(*a):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", boom)
    with pytest.raises(OSError):
        files.write_text_atomic(tmp_path / "x.txt", "hello")
    assert list(tmp_path.iterdir()) == []


def test_output_folder_writes_inside_an_existing_folder_but_keeps_its_files(tmp_path):
    assert files.output_folder(tmp_path, ["run.json"]) == tmp_path  # empty existing folder: fine
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(UserError, match="already holds run.json: pass --force"):
        files.output_folder(tmp_path, ["run.json", "table.txt"])
    assert files.output_folder(tmp_path, ["run.json"], force=True) == tmp_path
    (tmp_path / "f").write_text("x")
    with pytest.raises(UserError, match="is a file, not a folder"):
        files.output_folder(tmp_path / "f", ["run.json"])


def test_output_file_refuses_an_existing_file_and_writes_into_a_folder(tmp_path):
    assert files.output_file(tmp_path, "r.html") == tmp_path / "r.html"
    (tmp_path / "r.html").write_text("old")
    with pytest.raises(UserError, match="already exists: pass --force"):
        files.output_file(tmp_path / "r.html", "r.html")
    assert files.output_file(tmp_path / "r.html", "r.html", force=True) == tmp_path / "r.html"
