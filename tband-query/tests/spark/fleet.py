"""Runs fleet forms of the canned reports (queries/fleet/*.sql) with Apache
Spark in local mode over a folder that `tband-query export` wrote.

    python3 fleet.py DIR [--tags NAME,...] FORM.sql...

Every `table=T` folder of DIR becomes the view T, its `trace` column read
from the folder names. Prints one line of JSON per form:
{"report": NAME, "columns": [...], "rows": [[...], ...]}, the form's rows in
its order, with the named tags of each row's trace (from `trace_info`)
after `trace`, as `tband-query --fleet` puts them.
"""

import argparse
import decimal
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
        path = os.path.abspath(os.path.join(folder, entry)).replace("'", "\\'")
        # Tags are columns of trace_info that only some traces have: its
        # schema is the union of its files' (mergeSchema).
        merge = ", mergeSchema 'true'" if table == "trace_info" else ""
        spark.sql(
            f"CREATE TEMPORARY VIEW {table} USING parquet OPTIONS (path '{path}'{merge})"
        )


def plain(value):
    # A DECIMAL (e.g. from a literal like 100.0) is a number like any other
    # in JSON.
    return float(value) if isinstance(value, decimal.Decimal) else value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--tags", default="", help="tag columns of trace_info, comma-separated")
    parser.add_argument("forms", nargs="+")
    args = parser.parse_args()
    tags = [t for t in args.tags.split(",") if t]

    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    register(spark, args.dir)
    tags_of = {
        row["trace"]: [row[t] for t in tags]
        for row in spark.sql(
            "SELECT " + ", ".join(["trace"] + tags) + " FROM trace_info"
        ).collect()
    }
    for form in args.forms:
        with open(form) as f:
            result = spark.sql(f.read())
        columns = result.columns
        if columns[0] != "trace":
            raise SystemExit(f"{form}: its first column is {columns[0]}, not trace")
        rows = [
            [row[0]] + tags_of[row[0]] + [plain(v) for v in row[1:]]
            for row in result.collect()
        ]
        report = os.path.splitext(os.path.basename(form))[0]
        print(json.dumps({"report": report, "columns": ["trace"] + tags + columns[1:], "rows": rows}))
    spark.stop()


if __name__ == "__main__":
    main()
