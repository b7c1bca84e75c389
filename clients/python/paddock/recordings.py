"""Helpers for recordings: CSV exports as pandas DataFrames.

A CsvExportRequest's text has a header `tick,time_s,vehicle,<channels>`
and values printed to 17 significant digits, so they read back as the
very doubles the server computed (docs/protocol.md "Recordings").
"""
import io


def csv_to_dataframe(text):
    """A CSV export as a pandas DataFrame (pandas is needed for this alone).
    tick and vehicle are integers, every other column float64, parsed with
    the round-trip float parser so no value changes on the way."""
    try:
        import pandas
    except ImportError as e:
        raise ImportError("paddock: csv_to_dataframe needs pandas "
                          "(apt install python3-pandas)") from e
    header = text.split("\n", 1)[0].split(",")
    dtypes = {name: "float64" for name in header}
    dtypes["tick"] = "int64"
    dtypes["vehicle"] = "int64"
    return pandas.read_csv(io.StringIO(text), dtype=dtypes, float_precision="round_trip")


def csv_rows(text):
    """A CSV export as (header, rows) with each row a list of floats (tick and
    vehicle as ints), for use without pandas."""
    lines = [line for line in text.split("\n") if line]
    header = lines[0].split(",")
    out = []
    for line in lines[1:]:
        cells = line.split(",")
        out.append([int(cells[0]), float(cells[1]), int(cells[2])] +
                   [float(c) for c in cells[3:]])
    return header, out
