from bwlab.core.table import Column, TableData, count, ms, num, pct, ratio


def test_numbers_keep_small_values_visible():
    assert num(0.304) == "0.304"  # a CPU at 0.3 GB/s is not "0"
    assert num(4049.4) == "4049" and num(12.34) == "12.3" and num(3.456) == "3.46"
    assert num(None) == "-" and num(float("nan")) == "-"
    assert num(128352943.0) == "128 352 943"


def test_counts_use_one_style():
    assert count(1.29e8) == "129 M" and count(128352943) == "128 M" and count(999) == "999"
    assert count(2.6e9) == "2.6 G" and count(None) == "-"


def test_other_formats():
    assert pct(97.123) == "97" and pct(3.14) == "3.1" and ms(0.5091) == "0.509" and ratio(3.5) == "3.50x"


def test_table_rows_must_match_columns_and_empty_columns_drop():
    t = TableData("t", [Column("a"), Column("b")])
    t.add("1", "-")
    try:
        t.add("1")
    except ValueError as exc:
        assert "1 cells for 2 columns" in str(exc)
    else:
        raise AssertionError("a short row was accepted")
    assert [c.header for c in t.drop_empty_columns().columns] == ["a"]
