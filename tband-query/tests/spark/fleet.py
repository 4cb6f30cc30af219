"""Runs fleet forms of the canned reports with Apache Spark in local mode
over a folder that `tband-query export` wrote.

    python3 fleet.py DIR FORMS [--tags NAME,...] [--param NAME=VALUE]... REPORT...

Every `table=T` folder of DIR becomes the view T, its `trace` column read
from the folder names; then FORMS/views/*.sql make the views that several
forms read, and each REPORT runs as FORMS/REPORT.sql with the parameters
given. Prints one line of JSON per report:
{"report": REPORT, "columns": [...], "rows": [[...], ...]}, the form's rows
in its order, with the named tags of each row's trace (from `trace_info`)
after `trace`, as `tband-query --fleet` puts them.
"""

import argparse
import decimal
import glob
import json
import os

from pyspark.sql import SparkSession


def session():
    return (
        SparkSession.builder.master("local[2]")
        .appName("tband fleet")
        # The folders are small; Spark's default of 200 shuffle partitions
        # would make every GROUP BY start 200 tasks.
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        # Queries of a few seconds: the JVM's optimising compiler and
        # parallel collector cost more CPU than they save (without them the
        # test's Spark run takes half the CPU time).
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )


def register(spark, folder):
    # `trace` stays a string: a trace named 812 is not the number 812.
    spark.sql("SET spark.sql.sources.partitionColumnTypeInference.enabled=false")
    for entry in sorted(os.listdir(folder)):
        if not entry.startswith("table="):
            continue
        table = entry.removeprefix("table=")
        path = os.path.abspath(os.path.join(folder, entry))
        if "'" in path or "`" in path:
            raise SystemExit(f"{path}: a quote in the path")
        if table == "trace_info":
            # Tags are columns that only some traces have: the schema is the
            # union of the files' (mergeSchema).
            spark.sql(
                f"CREATE TEMPORARY VIEW trace_info USING parquet "
                f"OPTIONS (path '{path}', mergeSchema 'true')"
            )
        else:
            # file_row_number: a row's place in its trace's file, the model's
            # order (DuckDB's read_parquet gives it with file_row_number = true).
            spark.sql(
                f"CREATE TEMPORARY VIEW {table} AS "
                f"SELECT *, _metadata.row_index AS file_row_number FROM parquet.`{path}`"
            )


def plain(value):
    # A DECIMAL (e.g. from a literal like 100.0) is a number like any other
    # in JSON.
    return float(value) if isinstance(value, decimal.Decimal) else value


def defaults(text):
    """The parameters the header of a query declares with a default, read
    as tband-query reads them: `name = default  what` lines after
    `Parameters:`, up to a blank comment line."""
    header = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("--"):
            break
        header.append(line.lstrip("-").strip())
    found = {}
    if "parameters:" in (h.lower() for h in header):
        start = [h.lower() for h in header].index("parameters:") + 1
        for line in header[start:]:
            if not line:
                break
            name, _, rest = line.partition(" ")
            rest = rest.lstrip()
            if rest.startswith("="):
                found[name.lstrip(":$")] = typed(rest[1:].split()[0])
    return found


def typed(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("forms")
    parser.add_argument("--tags", default="", help="tag columns of trace_info, comma-separated")
    parser.add_argument("--param", action="append", default=[], help="NAME=VALUE")
    parser.add_argument("reports", nargs="+")
    args = parser.parse_args()
    tags = [t for t in args.tags.split(",") if t]
    params = {}
    for param in args.param:
        name, _, value = param.partition("=")
        params[name] = typed(value)

    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    register(spark, args.dir)
    for view in sorted(glob.glob(os.path.join(args.forms, "views", "*.sql"))):
        with open(view) as f:
            spark.sql(f.read())
    tags_of = {
        row["trace"]: [row[t] for t in tags]
        for row in spark.sql("SELECT " + ", ".join(["trace"] + tags) + " FROM trace_info").collect()
    }
    for report in args.reports:
        with open(os.path.join(args.forms, report + ".sql")) as f:
            text = f.read()
        result = spark.sql(text, args={**defaults(text), **params})
        columns = result.columns
        if columns[0] != "trace":
            raise SystemExit(f"{report}: its first column is {columns[0]}, not trace")
        rows = [
            [row[0]] + tags_of[row[0]] + [plain(v) for v in row[1:]]
            for row in result.collect()
        ]
        print(json.dumps({"report": report, "columns": ["trace"] + tags + columns[1:], "rows": rows}))
    spark.stop()


if __name__ == "__main__":
    main()
